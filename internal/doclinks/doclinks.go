// Package doclinks finds the doc links of Go comments (a name in square
// brackets: Name, Type.Method, pkg.Name) that name nothing, so that a rename which leaves a comment
// behind fails a test instead of turning the link into plain text. It reads
// the source with go/parser only: a link resolves when the name is declared
// at the top level of the comment's package (a type's fields and methods
// too), or, for pkg.Name, in a package of this module that the file imports.
// Links into other modules, all-capital words ([MAXGEN], a Tuxedo keyword)
// and lower-case single words ([i], an index) are not checked.
package doclinks

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
)

// link is a doc link: a bracketed name after a space, a parenthesis or the
// start of the comment's line (an index expression a[i] is not one).
var link = regexp.MustCompile(`(^|[\s(])\[\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,2})\]`)

// Stale is a doc link that names nothing.
type Stale struct {
	Pos  token.Position
	Link string
	Why  string
}

func (s Stale) String() string { return fmt.Sprintf("%s: [%s]: %s", s.Pos, s.Link, s.Why) }

// pkg is one package's declared names ("Name", "Type.Field", "Type.Method")
// and its non-test files.
type pkg struct {
	names map[string]bool
	files []*ast.File
}

// checker reads packages once each.
type checker struct {
	module, root string // the module's path and its directory
	fset         *token.FileSet
	pkgs         map[string]*pkg     // by directory
	named        map[string][]string // the module's package directories by their last element
}

// Check walks the Go packages under root, the directory of the module
// named module, and returns the doc links of their non-test files that
// name nothing. Directories named testdata, node_modules or starting with
// a dot are skipped.
func Check(module, root string) ([]Stale, error) {
	c := &checker{module: module, root: root, fset: token.NewFileSet(), pkgs: map[string]*pkg{}, named: map[string][]string{}}
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		dirs = append(dirs, path)
		c.named[filepath.Base(path)] = append(c.named[filepath.Base(path)], path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Stale
	for _, dir := range dirs {
		p, err := c.load(dir)
		if err != nil {
			return nil, err
		}
		for _, f := range p.files {
			out = append(out, c.file(p, f)...)
		}
	}
	return out, nil
}

// file checks the links of one file's comments.
func (c *checker) file(p *pkg, f *ast.File) []Stale {
	imports := map[string]string{}
	for _, im := range f.Imports {
		path := strings.Trim(im.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = path
	}
	var out []Stale
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			for _, m := range link.FindAllStringSubmatch(cm.Text, -1) {
				if why := c.resolve(p, imports, m[2]); why != "" {
					out = append(out, Stale{Pos: c.fset.Position(cm.Pos()), Link: m[2], Why: why})
				}
			}
		}
	}
	return out
}

// resolve says why l names nothing, or "" when it does (or is not checked).
func (c *checker) resolve(p *pkg, imports map[string]string, l string) string {
	if p.names[l] || predeclared[l] || strings.ToUpper(l) == l {
		return ""
	}
	first, rest, dotted := strings.Cut(l, ".")
	if !dotted && strings.ToLower(l) == l {
		return "" // a word or an index, unless it is declared (above)
	}
	if path, ok := imports[first]; dotted && ok {
		if !strings.HasPrefix(path, c.module+"/") {
			return "" // another module's: not checked
		}
		q, err := c.load(filepath.Join(c.root, strings.TrimPrefix(path, c.module+"/")))
		if err != nil || q.names[rest] {
			return ""
		}
		return path + " declares no " + rest
	}
	if dotted && p.names[first] {
		return first + " has no field or method " + rest
	}
	if dotted && strings.ToLower(first) == first {
		// go doc looks a package it is not imported by up in the standard
		// library: a link to a package of this module would stay plain text
		if dirs := c.named[first]; len(dirs) > 0 {
			return "the file does not import " + first + ", so the link is plain text"
		}
		return "" // the standard library's: not checked
	}
	return "names nothing declared in its package or the packages its file imports"
}

// load reads the package in dir (its non-test files).
func (c *checker) load(dir string) (*pkg, error) {
	if p, ok := c.pkgs[dir]; ok {
		return p, nil
	}
	p := &pkg{names: map[string]bool{}}
	c.pkgs[dir] = p
	pkgs, err := parser.ParseDir(c.fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	for _, ap := range pkgs {
		for _, f := range ap.Files {
			p.files = append(p.files, f)
			for _, d := range f.Decls {
				declare(p.names, d)
			}
		}
	}
	return p, nil
}

// declare adds the names d declares.
func declare(names map[string]bool, d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil || len(d.Recv.List) == 0 {
			names[d.Name.Name] = true
			return
		}
		if t := typeName(d.Recv.List[0].Type); t != "" {
			names[t+"."+d.Name.Name] = true
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names[s.Name.Name] = true
				switch t := s.Type.(type) {
				case *ast.StructType:
					for _, fl := range t.Fields.List {
						for _, n := range fl.Names {
							names[s.Name.Name+"."+n.Name] = true
						}
						if len(fl.Names) == 0 { // embedded
							if e := typeName(fl.Type); e != "" {
								names[s.Name.Name+"."+e[strings.LastIndex(e, ".")+1:]] = true
							}
						}
					}
				case *ast.InterfaceType:
					for _, m := range t.Methods.List {
						for _, n := range m.Names {
							names[s.Name.Name+"."+n.Name] = true
						}
					}
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names[n.Name] = true
				}
			}
		}
	}
}

// typeName is the name of a receiver's or an embedded field's type: T, *T,
// T[P], pkg.T.
func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return typeName(t.X) + "." + t.Sel.Name
	}
	return ""
}

// predeclared are Go's own names, which a link may name.
var predeclared = map[string]bool{"any": true, "bool": true, "byte": true, "comparable": true, "error": true,
	"float32": true, "float64": true, "int": true, "int32": true, "int64": true, "rune": true, "string": true,
	"uint8": true, "uint32": true, "uint64": true, "nil": true, "true": true, "false": true}
