package internal_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/allot-go/allot/"

// layer ranks the module's packages by their first path element (and
// internal's by their second): a package imports only packages of a lower
// layer, or of its own tree (offer/placement imports offer). This is the
// drawing of the design, kept true by a test.
var layer = map[string]int{
	"internal/fixed": 0, "internal/keyed": 0, "internal/names": 0, "internal/prefetch": 0, "internal/wire": 0,
	"reservation": 1, "volume": 1,
	"resources": 2,
	"offer":     3, "sorter": 3,
	"allocator": 4,
	"examples":  5,
}

// testKits are imported by tests only: they sit above what they generate
// values of, and nothing the library ships may import them.
var testKits = map[string]bool{"internal/gen": true}

func tree(pkg string) string {
	first, rest, _ := strings.Cut(pkg, "/")
	if first == "internal" {
		second, _, _ := strings.Cut(rest, "/")
		return first + "/" + second
	}
	return first
}

func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		isTest := strings.HasSuffix(path, "_test.go")
		from := tree(pkg)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			checked++
			to := tree(strings.TrimPrefix(p, module))
			switch {
			case testKits[to]:
				if !isTest && !testKits[from] {
					t.Errorf("%s imports the test kit %s", rel+"/"+filepath.Base(path), p)
				}
			case isTest || from == to || testKits[from]:
				// Tests and test kits may import anything below them; a
				// tree imports itself.
				if _, ok := layer[to]; !ok {
					t.Errorf("%s imports %s, which has no layer", path, p)
				}
			default:
				lf, okf := layer[from]
				lt, okt := layer[to]
				if !okf || !okt {
					t.Errorf("%s: %s or %s has no layer", path, from, to)
				} else if lt >= lf {
					t.Errorf("%s (layer %d) imports %s (layer %d): imports point down", rel+"/"+filepath.Base(path), lf, p, lt)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d imports of the module's packages checked; is the walk rooted at the module?", checked)
	}
}

func TestTreeOf(t *testing.T) {
	for in, want := range map[string]string{
		"allocator/sim": "allocator", "internal/gen": "internal/gen", "internal/wire": "internal/wire", "offer": "offer",
	} {
		if got := tree(in); got != want {
			t.Errorf("tree(%q) = %q, want %q", in, got, want)
		}
	}
}

// allocatorParts ranks the parts of the allocator's state machine under
// allocator/internal: a part imports only parts of a lower rank (and
// package allocator imports them all), as the design's drawing says.
var allocatorParts = map[string]int{
	"tables": 0,
	"roles":  1, "refusals": 1, "codec": 1,
	"cluster": 2, "observe": 2,
	"declines": 3, "reclaim": 3, "quota": 3,
	"explain": 4, "books": 4,
	"operations": 5, "fingerprint": 4, "audit": 5, "run": 5, "entryjson": 3,
	"machine": 6,
}

func TestAllocatorPartsImportDownward(t *testing.T) {
	root, err := filepath.Abs("../allocator/internal")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	const prefix = module + "allocator/internal/"
	fset := token.NewFileSet()
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		from, ok := allocatorParts[e.Name()]
		if !ok {
			t.Errorf("allocator/internal/%s has no rank in allocatorParts", e.Name())
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, e.Name(), "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				// The rule is the library's: a part's external tests may
				// build their worlds through the parts above it (run's
				// tests apply events with machine).
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == module+"allocator" || strings.HasPrefix(p, module+"allocator/") && !strings.HasPrefix(p, prefix) {
					t.Errorf("%s imports %s, above the parts", path, p)
				}
				name, ok := strings.CutPrefix(p, prefix)
				if !ok {
					continue
				}
				name, _, _ = strings.Cut(name, "/")
				to, known := allocatorParts[name]
				if name != e.Name() && (!known || to >= from) {
					t.Errorf("allocator/internal/%s (rank %d) imports %s (rank %d): parts import only lower ones", e.Name(), from, p, to)
				}
			}
		}
	}
}
