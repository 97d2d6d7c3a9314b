package exhaustive

import (
	_ "embed"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

//go:embed doc.go
var doc string

// Analyzer reports switches over sealed interfaces and enums that miss
// variants or members. See the package documentation for the rules.
var Analyzer = &analysis.Analyzer{
	Name:      "exhaustive",
	Doc:       analyzerDoc(doc, "exhaustive"),
	URL:       "https://pkg.go.dev/github.com/agui-go/sdk/analysis/exhaustive",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
	FactTypes: []analysis.Fact{new(sealedFact), new(enumFact)},
	Run:       run,
}

// The directives, as they appear in source.
const (
	sealedDirective = "//agui:sealed"
	enumDirective   = "//agui:enum"
	ignoreDirective = "//agui:nonexhaustive"
)

func run(pass *analysis.Pass) (any, error) {
	exportFacts(pass)

	in := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for fileCur := range in.Root().Children() {
		file := fileCur.Node().(*ast.File)
		if ast.IsGenerated(file) {
			continue
		}
		var optOut directiveLines // built on first need
		for cur := range fileCur.Preorder((*ast.SwitchStmt)(nil), (*ast.TypeSwitchStmt)(nil)) {
			var (
				pos  token.Pos
				body *ast.BlockStmt
				f    finding
			)
			switch s := cur.Node().(type) {
			case *ast.TypeSwitchStmt:
				pos, body = s.Switch, s.Body
				f = checkTypeSwitch(pass, s)
			case *ast.SwitchStmt:
				pos, body = s.Switch, s.Body
				f = checkExprSwitch(pass, s)
			}
			if len(f.missing) == 0 {
				continue
			}
			if optOut == nil {
				optOut = findDirectives(pass.Fset, file, ignoreDirective)
			}
			if optOut.suppresses(pass.Fset, cur, pos) {
				continue
			}
			pass.Report(analysis.Diagnostic{
				Pos:            pos,
				Message:        fmt.Sprintf("missing cases in switch of type %s: %s", f.subject, listNames(f.missing)),
				SuggestedFixes: suggestCases(pass, file, pos, body, f.missing),
			})
		}
	}
	return nil, nil
}

// finding is what a switch misses: the qualified name of the type it is
// over, and the variants or members its cases do not cover, in declaration
// order. No missing entries means nothing to report.
type finding struct {
	subject string
	missing []missingCase
}

// missingCase is one variant or member a switch does not cover.
type missingCase struct {
	pkg     *types.Package // the declaring package
	name    string         // the type or constant's name in pkg
	pointer bool           // a variant *name
	// value is a member's constant value (nil for a variant): members
	// sharing one get one case, as a second would not compile.
	value constant.Value
	// literal is a member's value as Go source (a string, integer or
	// boolean literal), for a fix in another package when the constant is
	// unexported; "" when there is none.
	literal string
}

// String is how a diagnostic names the case: qualified by package name.
func (m missingCase) String() string {
	star := ""
	if m.pointer {
		star = "*"
	}
	return star + m.pkg.Name() + "." + m.name
}

// checkTypeSwitch reports what a type switch over a sealed interface
// misses; the zero finding if the switch is not over a sealed interface or
// needs no diagnostic.
func checkTypeSwitch(pass *analysis.Pass, s *ast.TypeSwitchStmt) finding {
	var x ast.Expr
	switch a := s.Assign.(type) {
	case *ast.AssignStmt: // switch v := x.(type)
		if len(a.Rhs) == 1 {
			x = a.Rhs[0]
		}
	case *ast.ExprStmt: // switch x.(type)
		x = a.X
	}
	ta, ok := ast.Unparen(x).(*ast.TypeAssertExpr)
	if !ok {
		return finding{}
	}
	var fact sealedFact
	named, exprs := switchOver(pass, ta.X, s.Body, &fact)
	if named == nil {
		return finding{}
	}
	pkg := named.Obj().Pkg()

	covered := make([]bool, len(fact.Variants))
	for _, e := range exprs {
		t := pass.TypesInfo.TypeOf(e)
		if t == nil {
			continue
		}
		ptr := false
		if p, ok := types.Unalias(t).(*types.Pointer); ok {
			ptr, t = true, p.Elem()
		}
		n, ok := types.Unalias(t).(*types.Named)
		if !ok || !samePackage(n.Obj().Pkg(), pkg) {
			continue
		}
		for i, v := range fact.Variants {
			// A pointer variant needs *T; a value variant T is also
			// counted by *T, whose method set includes T's.
			if v.Name == n.Obj().Name() && (ptr || !v.Pointer) {
				covered[i] = true
			}
		}
	}

	f := finding{subject: pkg.Name() + "." + named.Obj().Name()}
	for i, v := range fact.Variants {
		if !covered[i] {
			f.missing = append(f.missing, missingCase{pkg: pkg, name: v.Name, pointer: v.Pointer})
		}
	}
	return f
}

// checkExprSwitch is checkTypeSwitch for an expression switch whose tag has
// an enum type.
func checkExprSwitch(pass *analysis.Pass, s *ast.SwitchStmt) finding {
	if s.Tag == nil {
		return finding{}
	}
	var fact enumFact
	named, exprs := switchOver(pass, s.Tag, s.Body, &fact)
	if named == nil {
		return finding{}
	}
	pkg := named.Obj().Pkg()

	values := make([]constant.Value, len(fact.Members))
	for i, m := range fact.Members {
		values[i] = m.value()
	}
	covered := make([]bool, len(fact.Members))
	for _, e := range exprs {
		// By identity: the case names a member constant.
		if c, ok := usedObject(pass.TypesInfo, e).(*types.Const); ok && samePackage(c.Pkg(), pkg) {
			for i, m := range fact.Members {
				if m.Name == c.Name() {
					covered[i] = true
				}
			}
		}
		// By value: any constant equal to a member's value.
		tv, ok := pass.TypesInfo.Types[e]
		if !ok || tv.Value == nil {
			continue
		}
		for i, v := range values {
			if equalConst(tv.Value, v) {
				covered[i] = true
			}
		}
	}

	f := finding{subject: pkg.Name() + "." + named.Obj().Name()}
	for i, m := range fact.Members {
		if covered[i] {
			continue
		}
		mc := missingCase{pkg: pkg, name: m.Name, value: values[i]}
		if v := values[i]; v.Kind() == constant.String || v.Kind() == constant.Int || v.Kind() == constant.Bool {
			mc.literal = v.ExactString()
		}
		f.missing = append(f.missing, mc)
	}
	return f
}

// switchOver returns the defined type of the switch subject x when its
// declaration carries a fact of fact's type (loaded into fact), and the
// expressions of the switch's cases in order. It returns nil when the switch
// is not checked: its subject is of another type, or a default clause that
// only panics exempts it.
func switchOver(pass *analysis.Pass, x ast.Expr, body *ast.BlockStmt, fact analysis.Fact) (*types.Named, []ast.Expr) {
	named := definedType(pass.TypesInfo.TypeOf(x))
	if named == nil || !pass.ImportObjectFact(named.Obj(), fact) {
		return nil, nil
	}
	var exprs []ast.Expr
	for _, stmt := range body.List {
		cc := stmt.(*ast.CaseClause)
		if cc.List == nil && onlyPanics(pass.TypesInfo, cc.Body) {
			return nil, nil
		}
		exprs = append(exprs, cc.List...)
	}
	return named, exprs
}

// definedType returns t as a non-instantiated defined type, looking through
// aliases, or nil.
func definedType(t types.Type) *types.Named {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.TypeArgs().Len() > 0 || n.Obj().Pkg() == nil {
		return nil
	}
	return n
}

// samePackage reports whether a and b are the same package. Paths are
// compared, not pointers, because a test variant of a package and the
// package itself are distinct *types.Package values with one path.
func samePackage(a, b *types.Package) bool {
	return a != nil && b != nil && a.Path() == b.Path()
}

// usedObject returns the object named by e if e is a possibly parenthesized
// identifier or qualified identifier.
func usedObject(info *types.Info, e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return info.Uses[e]
	case *ast.SelectorExpr:
		return info.Uses[e.Sel]
	}
	return nil
}

// equalConst reports whether x and y are comparable constants of one value.
func equalConst(x, y constant.Value) bool {
	return compatible(x, y) && constant.Compare(x, token.EQL, y)
}

// compatible reports whether constant.Compare may be applied to x and y.
func compatible(x, y constant.Value) bool {
	class := func(k constant.Kind) constant.Kind {
		if k == constant.Int || k == constant.Float || k == constant.Complex {
			return constant.Int
		}
		return k
	}
	return x.Kind() != constant.Unknown && class(x.Kind()) == class(y.Kind())
}

// onlyPanics reports whether body is exactly one call of the builtin panic.
func onlyPanics(info *types.Info, body []ast.Stmt) bool {
	if len(body) != 1 {
		return false
	}
	es, ok := body[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := ast.Unparen(es.X).(*ast.CallExpr)
	if !ok {
		return false
	}
	b, ok := usedObject(info, call.Fun).(*types.Builtin)
	return ok && b.Name() == "panic"
}

// exportFacts finds the //agui:sealed and //agui:enum declarations of the
// package and exports their variant and member sets. Facts come from every
// file, generated or not; only misplaced directives in hand-written files
// are reported.
func exportFacts(pass *analysis.Pass) {
	type decl[T types.Object] struct {
		obj  T
		test bool // declared in a _test.go file
	}
	var (
		sealed, enums []decl[*types.TypeName]
		typeNames     []decl[*types.TypeName]
		consts        []decl[*types.Const]
	)
	for _, file := range pass.Files {
		test := strings.HasSuffix(pass.Fset.PositionFor(file.Package, false).Filename, "_test.go")
		generated := ast.IsGenerated(file)
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					tn, ok := pass.TypesInfo.Defs[spec.Name].(*types.TypeName)
					if !ok {
						continue
					}
					typeNames = append(typeNames, decl[*types.TypeName]{tn, test})
					doc := spec.Doc
					if doc == nil && !gd.Lparen.IsValid() {
						doc = gd.Doc
					}
					if hasDirective(doc, sealedDirective) {
						if isSealable(tn) {
							sealed = append(sealed, decl[*types.TypeName]{tn, test})
						} else if !generated {
							pass.Reportf(spec.Name.Pos(), "%s applies only to non-generic interface types", sealedDirective)
						}
					}
					if hasDirective(doc, enumDirective) {
						if isEnumerable(tn) {
							enums = append(enums, decl[*types.TypeName]{tn, test})
						} else if !generated {
							pass.Reportf(spec.Name.Pos(), "%s applies only to defined types with a basic underlying type", enumDirective)
						}
					}
				case *ast.ValueSpec:
					for _, name := range spec.Names {
						if c, ok := pass.TypesInfo.Defs[name].(*types.Const); ok && c.Name() != "_" {
							consts = append(consts, decl[*types.Const]{c, test})
						}
					}
				}
			}
		}
	}

	for _, s := range sealed {
		iface := s.obj.Type().Underlying().(*types.Interface)
		fact := new(sealedFact)
		for _, t := range typeNames {
			if t.obj == s.obj || t.test && !s.test || t.obj.IsAlias() {
				continue
			}
			named, ok := t.obj.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 || types.IsInterface(named) {
				continue
			}
			switch {
			case types.Implements(named, iface):
				fact.Variants = append(fact.Variants, variant{Name: t.obj.Name()})
			case types.Implements(types.NewPointer(named), iface):
				fact.Variants = append(fact.Variants, variant{Name: t.obj.Name(), Pointer: true})
			}
		}
		pass.ExportObjectFact(s.obj, fact)
	}
	for _, e := range enums {
		fact := new(enumFact)
		for _, c := range consts {
			if c.test && !e.test || !types.Identical(c.obj.Type(), e.obj.Type()) {
				continue
			}
			fact.Members = append(fact.Members, newMember(c.obj.Name(), c.obj.Val()))
		}
		pass.ExportObjectFact(e.obj, fact)
	}
}

// isSealable reports whether tn may carry //agui:sealed.
func isSealable(tn *types.TypeName) bool {
	n, ok := tn.Type().(*types.Named)
	return ok && !tn.IsAlias() && n.TypeParams().Len() == 0 && types.IsInterface(n)
}

// isEnumerable reports whether tn may carry //agui:enum.
func isEnumerable(tn *types.TypeName) bool {
	n, ok := tn.Type().(*types.Named)
	if !ok || tn.IsAlias() || n.TypeParams().Len() > 0 {
		return false
	}
	_, basic := n.Underlying().(*types.Basic)
	return basic
}

// hasDirective reports whether doc holds the directive name, alone on its
// line or followed by white space and free text.
func hasDirective(doc *ast.CommentGroup, name string) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if isDirective(c.Text, name) {
			return true
		}
	}
	return false
}

func isDirective(text, name string) bool {
	rest, ok := strings.CutPrefix(text, name)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// directiveLines maps a line number to the positions of the directive
// comments that start on it.
type directiveLines map[int][]token.Pos

func findDirectives(fset *token.FileSet, file *ast.File, name string) directiveLines {
	lines := make(directiveLines)
	for _, cg := range file.Comments {
		for _, c := range cg.List {
			if isDirective(c.Text, name) {
				line := fset.PositionFor(c.Slash, false).Line
				lines[line] = append(lines[line], c.Slash)
			}
		}
	}
	return lines
}

// suppresses reports whether an opt-out directive applies to the switch
// statement at cur whose keyword is at pos: the directive ends the line of
// the keyword, or sits on the line above the statement or above its label.
func (lines directiveLines) suppresses(fset *token.FileSet, cur inspector.Cursor, pos token.Pos) bool {
	line := fset.PositionFor(pos, false).Line
	for _, p := range lines[line] {
		if p > pos {
			return true
		}
	}
	if len(lines[line-1]) > 0 {
		return true
	}
	if l, ok := cur.Parent().Node().(*ast.LabeledStmt); ok {
		return len(lines[fset.PositionFor(l.Pos(), false).Line-1]) > 0
	}
	return false
}

// analyzerDoc returns the text of the package comment in src that follows
// the heading "# Analyzer name", which is how the x/tools passes keep one
// copy of their documentation.
func analyzerDoc(src, name string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		panic(err)
	}
	_, text, ok := strings.Cut(f.Doc.Text(), "# Analyzer "+name+"\n")
	if !ok {
		panic("doc.go has no heading # Analyzer " + name)
	}
	return strings.TrimSpace(text)
}
