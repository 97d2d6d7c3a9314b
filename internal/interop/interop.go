// Package interop runs the TypeScript reference implementation of AG-UI
// (@ag-ui/client, core, encoder and proto 1.0.0, pinned in node/) against
// this SDK. Tests install the packages themselves from the committed lock
// file when node_modules is missing.
package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

var (
	installOnce sync.Once
	installErr  error
)

// NodeDir returns the directory holding package.json, with its dependencies
// installed (npm ci from the lock file on first use).
func NodeDir() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "node")
	installOnce.Do(func() {
		if _, err := exec.LookPath("node"); err != nil {
			installErr = fmt.Errorf("interop: node is not installed: %w", err)
			return
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", "client", "package.json")); err == nil {
			return
		}
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			installErr = fmt.Errorf("interop: npm ci in %s: %v\n%s", dir, err, out)
		}
	})
	return dir, installErr
}
