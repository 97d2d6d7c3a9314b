package exhaustive_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/agui-go/sdk/analysis/exhaustive"
)

func TestAnalyzer(t *testing.T) {
	t.Parallel()
	if err := analysis.Validate([]*analysis.Analyzer{exhaustive.Analyzer}); err != nil {
		t.Fatal(err)
	}
	testdataRun().report(t, forAnalyzer)
}

// The packages of testdata/src. Those of analyzerPackages have their
// diagnostics checked (their // want comments); those of fixPackages also
// have every suggested fix applied and compared with the .golden files.
var (
	analyzerPackages = []string{
		"example.com/events",     // declarations, with a generated file and a test-only variant
		"example.com/consumer",   // consumer in a sibling path
		"other.org/consumer/app", // consumer under an unrelated path, with an external test
		"example.com/misuse",     // misplaced directives
	}
	fixPackages = []string{
		"example.com/fix",      // another package: qualifiers, imports, literals, a default clause, a long list
		"example.com/fixlocal", // the declaring package: no qualifiers
	}
)

// testdataRun runs analysistest once over analyzerPackages and fixPackages
// together, for TestAnalyzer and TestSuggestedFixes: loading the packages,
// and the standard library they import, from source is most of the cost of
// either test (under -race especially), and one load serves both. Each test
// reports the errors that concern its packages (see report).
var testdataRun = sync.OnceValue(func() *recorder {
	rec := new(recorder)
	results := analysistest.RunWithSuggestedFixes(rec, analysistest.TestData(), exhaustive.Analyzer,
		append(append([]string{}, analyzerPackages...), fixPackages...)...)
	for _, r := range results {
		for _, err := range r.Action.Package.Errors {
			rec.logs = append(rec.logs, fmt.Sprint(err))
		}
	}
	return rec
})

// recorder is the analysistest.Testing of testdataRun: it keeps the errors.
type recorder struct {
	mu   sync.Mutex
	errs []string
	logs []string // the packages' load errors, which analysistest.Run logs
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

var (
	// namesFix and namesOther match a message naming a file or package of
	// fixPackages (or fixsource, which fix imports) or of analyzerPackages.
	namesFix   = regexp.MustCompile(`example\.com/fix(local|source)?\b`)
	namesOther = regexp.MustCompile(`example\.com/(events|consumer|misuse)\b|other\.org/consumer`)
	// notFixChecked matches what RunWithSuggestedFixes says of a file
	// whose fixes it cannot check (it has no .golden file, or its fixes
	// overlap): analyzerPackages have no .golden files, their fixes are
	// not checked, as when they ran through analysistest.Run alone.
	notFixChecked = regexp.MustCompile(`^(error reading (.*)\.golden: |in file (.*), conflict applying fix )`)
)

type audience int

const (
	forAnalyzer audience = iota
	forFixes
)

// report fails t with the errors of testdataRun that concern its audience.
// An error concerns the test of the package it names first (each message
// starts with the file or the package it is about; a fix's diff may quote
// other packages' import paths further on). One that names no package, or
// is about loading them all, concerns both tests.
func (r *recorder) report(t *testing.T, who audience) {
	t.Helper()
	for _, l := range r.logs {
		t.Log(l)
	}
	for _, e := range r.errs {
		if m := notFixChecked.FindStringSubmatch(e); m != nil && !namesFix.MatchString(m[2]+m[3]) {
			continue
		}
		if !strings.HasPrefix(e, "loading ") {
			fix, other := namesFix.FindStringIndex(e), namesOther.FindStringIndex(e)
			switch {
			case fix != nil && (other == nil || fix[0] < other[0]):
				if who != forFixes {
					continue
				}
			case other != nil:
				if who != forAnalyzer {
					continue
				}
			}
		}
		t.Errorf("%s", e)
	}
}

// TestModules checks a consumer whose sealed interface and enum come from
// another module, loaded in module mode.
func TestModules(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(analysistest.TestData(), "modules", "app")
	analysistest.Run(t, dir, exhaustive.Analyzer, "./...")
}

func TestDoc(t *testing.T) {
	t.Parallel()
	doc := exhaustive.Analyzer.Doc
	title, body, _ := strings.Cut(doc, "\n")
	if want := "exhaustive: check that switches over sealed interfaces and enums are exhaustive"; title != want {
		t.Errorf("Doc title = %q, want %q", title, want)
	}
	for _, want := range []string{"//agui:sealed", "//agui:enum", "//agui:nonexhaustive", "declaration order", "panic"} {
		if !strings.Contains(body, want) {
			t.Errorf("Doc does not mention %q", want)
		}
	}
}

// TestSuggestedFixes applies every suggested fix and compares each file
// with its .golden copy.
func TestSuggestedFixes(t *testing.T) {
	t.Parallel()
	testdataRun().report(t, forFixes)
}
