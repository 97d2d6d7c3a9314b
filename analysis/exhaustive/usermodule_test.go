package exhaustive_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFromUserModule follows the package documentation from a user's own
// module that depends on the SDK: go vet -vettool reports a switch that
// misses events, go fix -fixtool inserts them, and afterwards the module
// builds and vet is clean.
func TestFromUserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the analyzer and a module")
	}
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(t.TempDir(), "agui-exhaustive")
	if out, err := exec.Command("go", "build", "-o", tool, filepath.Join(root, "cmd", "agui-exhaustive")).CombinedOutput(); err != nil {
		t.Fatalf("building the analyzer: %v\n%s", err, out)
	}

	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/user\n\ngo 1.26\n\nrequire github.com/agui-go/sdk v0.0.0\n\nreplace github.com/agui-go/sdk => " + root + "\n",
		"go.sum": string(sum),
		"describe.go": `package user

import "github.com/agui-go/sdk/agui"

// Describe handles two events and, before the fix, forgets the rest.
func Describe(ev agui.Event) string {
	switch e := ev.(type) {
	case *agui.TextMessageContent:
		return e.Delta
	case *agui.RunStarted:
		return "started"
	default:
		return "other"
	}
}
`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := goCmd("vet", "-vettool="+tool, "./...")
	if err == nil || !strings.Contains(out, "missing cases in switch of type agui.Event: *agui.TextMessageStart,") || !strings.Contains(out, " more") {
		t.Fatalf("go vet before the fix: %v\n%s", err, out)
	}
	if out, err := goCmd("fix", "-fixtool="+tool, "./..."); err != nil {
		t.Fatalf("go fix: %v\n%s", err, out)
	}
	fixed, err := os.ReadFile(filepath.Join(dir, "describe.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fixed), "\tcase *agui.RunError:\n\t\tpanic(\"TODO: handle *agui.RunError\")\n") {
		t.Fatalf("the fix did not insert the cases:\n%s", fixed)
	}
	if out, err := goCmd("vet", "-vettool="+tool, "./..."); err != nil {
		t.Fatalf("go vet after the fix: %v\n%s\n%s", err, out, fixed)
	}
	if out, err := goCmd("build", "./..."); err != nil {
		t.Fatalf("go build after the fix: %v\n%s", err, out)
	}
}
