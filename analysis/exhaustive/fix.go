package exhaustive

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// maxListed is how many missing names a diagnostic spells out. A switch
// written before a protocol bump misses one or two cases, and those are
// listed; a fresh switch over every event misses dozens, and a wall of names
// in an editor's hover or a CI log hides the point. The suggested fix always
// inserts every case.
const maxListed = 6

// listNames renders the missing cases for a diagnostic: all of them up to
// maxListed, else the first maxListed-1 and how many more.
func listNames(missing []missingCase) string {
	names := make([]string, 0, min(len(missing), maxListed))
	for _, m := range missing {
		if len(names) == maxListed-1 && len(missing) > maxListed {
			break
		}
		names = append(names, m.String())
	}
	list := strings.Join(names, ", ")
	if rest := len(missing) - len(names); rest > 0 {
		list += fmt.Sprintf(" and %d more", rest)
	}
	return list
}

// suggestCases returns a fix that inserts one case clause per missing case,
// before the default clause if there is one, else at the end of the switch
// body. Each body is panic("TODO: handle X"): an empty body would absorb
// the case silently, which is what the analyzer exists to prevent, and
// would break a switch that ends its function (a missing return); a panic
// is a terminating statement, compiles anywhere, and fails loudly until
// someone writes the handling.
// Members that share a value get one case (a second would not compile);
// a variant or member this package cannot name (unexported elsewhere, with
// no literal to stand in) gets none. Names are qualified as the file
// imports the package, and an import is added when the file has none.
func suggestCases(pass *analysis.Pass, file *ast.File, pos token.Pos, body *ast.BlockStmt, missing []missingCase) []analysis.SuggestedFix {
	at := body.Rbrace
	for _, stmt := range body.List {
		if cc, ok := stmt.(*ast.CaseClause); ok && cc.List == nil {
			at = cc.Case
		}
	}
	indent := indentation(pass, pos)
	q := qualifiers{pass: pass, file: file}
	var text bytes.Buffer
	var seen []constant.Value
	n := 0
	for _, m := range missing {
		if m.value != nil {
			if slices.ContainsFunc(seen, func(v constant.Value) bool { return equalConst(v, m.value) }) {
				continue
			}
			seen = append(seen, m.value)
		}
		expr, ok := q.expr(m)
		if !ok {
			continue
		}
		todo := expr
		if expr == m.literal {
			todo = m.String() + " (" + expr + ")"
		}
		fmt.Fprintf(&text, "case %s:\n%s\tpanic(%s)\n%s", expr, indent, strconv.Quote("TODO: handle "+todo), indent)
		n++
	}
	if n == 0 {
		return nil
	}
	edits := append(q.imports, analysis.TextEdit{Pos: at, End: at, NewText: text.Bytes()})
	msg := "add the missing case"
	if n > 1 {
		msg = fmt.Sprintf("add the %d missing cases", n)
	}
	return []analysis.SuggestedFix{{Message: msg, TextEdits: edits}}
}

// indentation returns the white space that starts the line holding pos, so
// that inserted clauses line up with the switch; "" when the source cannot
// be read (gofmt will indent).
func indentation(pass *analysis.Pass, pos token.Pos) string {
	tf := pass.Fset.File(pos)
	if tf == nil || pass.ReadFile == nil {
		return ""
	}
	src, err := pass.ReadFile(tf.Name())
	if err != nil {
		return ""
	}
	start := tf.Offset(tf.LineStart(tf.Line(pos)))
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// qualifiers writes case expressions for one file, adding imports as
// needed.
type qualifiers struct {
	pass    *analysis.Pass
	file    *ast.File
	imports []analysis.TextEdit
	added   map[string]string // import path → name, for imports this fix adds
}

// expr returns the Go expression naming m in the file: *pkg.T, pkg.C, T or
// C, or a member's literal; false when the file cannot name it.
func (q *qualifiers) expr(m missingCase) (string, bool) {
	local := q.pass.Pkg != nil && samePackage(m.pkg, q.pass.Pkg)
	if !local && !token.IsExported(m.name) {
		return m.literal, m.literal != ""
	}
	name := m.name
	if !local {
		name = q.prefix(m.pkg) + name
	}
	if m.pointer {
		name = "*" + name
	}
	return name, true
}

// prefix returns "name." for a package the file imports under name, "" for
// a dot import, and for one it does not import, adds the import.
func (q *qualifiers) prefix(pkg *types.Package) string {
	for _, imp := range q.file.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p != pkg.Path() {
			continue
		}
		switch {
		case imp.Name == nil:
			return pkg.Name() + "."
		case imp.Name.Name == ".":
			return ""
		case imp.Name.Name != "_":
			return imp.Name.Name + "."
		}
	}
	if name, ok := q.added[pkg.Path()]; ok {
		return name + "."
	}
	if q.added == nil {
		q.added = map[string]string{}
	}
	q.added[pkg.Path()] = pkg.Name()
	spec := strconv.Quote(pkg.Path())
	if path.Base(pkg.Path()) != pkg.Name() {
		spec = pkg.Name() + " " + spec
	}
	q.imports = append(q.imports, q.importEdit(spec))
	return pkg.Name() + "."
}

// importEdit adds an import spec: into the file's last import declaration,
// or as a new declaration after the package clause.
func (q *qualifiers) importEdit(spec string) analysis.TextEdit {
	var last *ast.GenDecl
	for _, d := range q.file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			last = gd
		}
	}
	switch {
	case last == nil:
		at := q.file.Name.End()
		return analysis.TextEdit{Pos: at, End: at, NewText: []byte("\n\nimport " + spec)}
	case last.Rparen.IsValid():
		return analysis.TextEdit{Pos: last.Rparen, End: last.Rparen, NewText: []byte("\t" + spec + "\n")}
	default:
		at := last.End()
		return analysis.TextEdit{Pos: at, End: at, NewText: []byte("\nimport " + spec)}
	}
}
