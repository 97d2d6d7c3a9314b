package exhaustive_test

import (
	"path/filepath"
	"strings"
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
	testdata := analysistest.TestData()
	analysistest.Run(t, testdata, exhaustive.Analyzer,
		"example.com/events",     // declarations, with a generated file and a test-only variant
		"example.com/consumer",   // consumer in a sibling path
		"other.org/consumer/app", // consumer under an unrelated path, with an external test
		"example.com/misuse",     // misplaced directives
	)
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
	analysistest.RunWithSuggestedFixes(t, analysistest.TestData(), exhaustive.Analyzer,
		"example.com/fix",      // another package: qualifiers, imports, literals, a default clause, a long list
		"example.com/fixlocal", // the declaring package: no qualifiers
	)
}
