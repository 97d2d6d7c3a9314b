// Package spectest locates the shared AG-UI test data (the official 1.0
// schema, its fixtures and the conformance streams; the official 1.1 schema,
// its conformance streams and .proto files) for tests. The data lives
// beside the repository in ../shared/agui-spec and is never copied into it.
package spectest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir returns the agui-spec/1.0 directory. It looks for ../shared/agui-spec
// beside the repository root (the directory whose go.mod is the core
// module's: tests of the nested modules, such as cmd/agui, run in a
// directory below another go.mod first), or uses
// $AGUI_SPEC_DIR (the agui-spec directory, which holds 1.0/) when set.
func Dir() (string, error) { return VersionDir("1.0") }

// VersionDir is [Dir] for another version's data: agui-spec/<version>,
// which holds schema.json (1.1 also holds the upstream conformance streams
// unconverted, and the .proto files).
func VersionDir(version string) (string, error) {
	if d := os.Getenv("AGUI_SPEC_DIR"); d != "" {
		spec := filepath.Join(d, version)
		if _, err := os.Stat(filepath.Join(spec, "schema.json")); err != nil {
			return "", fmt.Errorf("spectest: AGUI_SPEC_DIR=%s should be the agui-spec directory holding %s/schema.json: %w", d, version, err)
		}
		return spec, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if isRoot(filepath.Join(dir, "go.mod")) {
			spec := filepath.Join(dir, "..", "shared", "agui-spec", version)
			if _, err := os.Stat(filepath.Join(spec, "schema.json")); err != nil {
				return "", fmt.Errorf("spectest: AG-UI test data not found at %s (set AGUI_SPEC_DIR to the agui-spec directory): %w", spec, err)
			}
			return spec, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("spectest: no go.mod of module %s above %s", rootModule, wd)
		}
	}
}

// RequireVersion is [Require] for [VersionDir].
func RequireVersion(t TB, version string) string {
	t.Helper()
	dir, err := VersionDir(version)
	if err != nil {
		missing(t, err)
	}
	return dir
}

// Fixture is one single-document schema fixture.
type Fixture struct {
	Definition string // the $anchor it is validated against, e.g. "RunAgentInput"
	Valid      bool   // from its folder: valid/ or invalid/
	Path       string // absolute path
	Name       string // path relative to the fixtures folder
}

// Fixtures lists every document named in fixtures/MANIFEST.txt.
func Fixtures() ([]Fixture, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "fixtures")
	f, err := os.Open(filepath.Join(root, "MANIFEST.txt"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "/")
		if len(parts) != 3 || (parts[1] != "valid" && parts[1] != "invalid") {
			return nil, fmt.Errorf("spectest: unexpected manifest line %q", line)
		}
		out = append(out, Fixture{Definition: parts[0], Valid: parts[1] == "valid", Path: filepath.Join(root, line), Name: line})
	}
	return out, sc.Err()
}

// TB is the part of [testing.TB] that [Require] and [RequireFixtures] use.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// Require returns the agui-spec/1.0 directory, or ends the test when the
// data cannot be found. Locally that is a skip whose message says how to
// point the tests at the data, so a fresh clone without it still tests
// everything else; under CI (the CI environment variable set) it is a
// failure, so tests that need the data never vanish from a CI run.
func Require(t TB) string {
	t.Helper()
	dir, err := Dir()
	if err != nil {
		missing(t, err)
	}
	return dir
}

// RequireFixtures is [Fixtures] under the policy of [Require].
func RequireFixtures(t TB) []Fixture {
	t.Helper()
	if _, err := Dir(); err != nil {
		missing(t, err)
		return nil
	}
	fixtures, err := Fixtures()
	if err != nil {
		t.Fatal(err) // the data is there but broken: never a skip
	}
	return fixtures
}

// missing applies the policy to data that is not there.
func missing(t TB, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(fmt.Errorf("%w\n(CI is set, so missing test data fails the test)", err))
		return
	}
	t.Skip(fmt.Errorf("%w\n(skipped; "+hint+"; with CI set this fails)", err))
}

// hint says where the data comes from.
const hint = "the data is the spec/ directory (holding 1.0/) of the official ag-ui repository, github.com/ag-ui-protocol/ag-ui: put it at ../shared/agui-spec beside the repository or set AGUI_SPEC_DIR to it"

// rootModule is the core module's path, which names the repository root.
const rootModule = "github.com/agui-go/sdk"

// isRoot reports whether the go.mod file at path declares the core module.
func isRoot(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == rootModule
		}
	}
	return false
}
