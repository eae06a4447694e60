// Package textcheck checks what the example programs print: the same text
// on every run, no Go map printed raw, and resources and quantities printed
// in the library's format with their names in order.
package textcheck

import (
	"bytes"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// list matches a list of resources or quantities in the library's text
	// format with two entries or more: "cpus:1; disk[id:v,path:p]:10; mem:2".
	list = regexp.MustCompile(`[a-z_]+(?:\[[^\]]*\])?:[^;\s]+(?:; [a-z_]+(?:\[[^\]]*\])?:[^;\s]+)+`)
	// name matches the name of each entry of a list.
	name = regexp.MustCompile(`(?:^|; )([a-z_]+)(?:\[[^\]]*\])?:`)
)

// Check fails t for every line of output that prints a Go map raw
// ("map[...]") or a list of resources whose names are out of order.
func Check(t testing.TB, output string) {
	t.Helper()
	for i, line := range strings.Split(output, "\n") {
		if strings.Contains(line, "map[") {
			t.Errorf("line %d prints a raw map: %s", i+1, line)
		}
		for _, l := range list.FindAllString(line, -1) {
			var names []string
			for _, m := range name.FindAllStringSubmatch(l, -1) {
				names = append(names, m[1])
			}
			if !slices.IsSorted(names) {
				t.Errorf("line %d prints resources out of name order (%s): %s", i+1, strings.Join(names, ", "), line)
			}
		}
	}
}

// Run calls run twice, fails t unless both print the same text, checks the
// text with Check and returns it.
func Run(t testing.TB, run func(w io.Writer) error) string {
	t.Helper()
	var first, second bytes.Buffer
	if err := run(&first); err != nil {
		t.Fatalf("run: %v\n%s", err, first.String())
	}
	if err := run(&second); err != nil {
		t.Fatalf("second run: %v\n%s", err, second.String())
	}
	if first.String() != second.String() {
		t.Errorf("two runs printed different text:\n%s\n---\n%s", first.String(), second.String())
	}
	Check(t, first.String())
	return first.String()
}
