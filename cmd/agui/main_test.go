package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agui-go/sdk/cmd/agui/internal/cli"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/*/*.txtar")

// TestGolden runs each testdata/<command>/*.txtar scenario: its comment
// holds "args: ..." (the command line after "agui"), its files are the
// inputs (written to a temporary working directory; a file named "stdin" is
// standard input), and the sections "stdout", "stderr" and "exit" are the
// expected results. With -update they are rewritten from what the command
// does.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var args []string
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if rest, ok := strings.CutPrefix(line, "args:"); ok {
					args = strings.Fields(rest)
				}
			}
			if args == nil {
				t.Fatal("no args: line in the comment")
			}
			dir := t.TempDir()
			var stdin []byte
			var inputs []txtar.File
			for _, f := range ar.Files {
				switch f.Name {
				case "stdout", "stderr", "exit":
					continue
				case "stdin":
					stdin = f.Data
				default:
					if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				inputs = append(inputs, f)
			}
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			code := cli.Main(args, bytes.NewReader(stdin), &stdout, &stderr)
			got := map[string][]byte{
				"stdout": stdout.Bytes(),
				"stderr": stderr.Bytes(),
				"exit":   []byte(strconv.Itoa(code) + "\n"),
			}
			if *update {
				ar.Files = inputs
				for _, name := range []string{"stdout", "stderr", "exit"} {
					ar.Files = append(ar.Files, txtar.File{Name: name, Data: got[name]})
				}
				t.Chdir(filepath.Dir(dir)) // leave the temporary directory before writing
				if err := os.WriteFile(filepath.Join(wd, file), txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range []string{"stdout", "stderr", "exit"} {
				var want []byte
				for _, f := range ar.Files {
					if f.Name == name {
						want = f.Data
					}
				}
				if !bytes.Equal(got[name], want) {
					t.Errorf("%s:\ngot:\n%s\nwant:\n%s", name, got[name], want)
				}
			}
		})
	}
}

// wd is the package directory, where testdata lives.
var wd, _ = os.Getwd()
