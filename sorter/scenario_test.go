package sorter

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/allot-go/allot/resources"
)

// TestScenarios runs the scenario files in testdata against the DRF
// sorter. A file is a list of commands, one a line, each optionally
// followed by its expected output on lines starting with "=>":
//
//	agent NAME QUANTITIES       AddAgent
//	rmagent NAME                RemoveAgent
//	add|remove|activate|deactivate CLIENT...
//	weight PATH WEIGHT          UpdateWeight
//	alloc CLIENT AGENT RES      Allocated
//	unalloc CLIENT AGENT RES    Unallocated
//	update CLIENT AGENT OLD -> NEW
//	sort                        => the clients, space separated
//	share PATH                  => ShareOf, %g
//	describe                    => Describe, line by line
//
// A command that fails must be followed by "=> error: " and the sentinel's
// text. Lines starting with # are comments; a blank line starts a new
// sorter (with "exclude NAME..." as its first line to exclude names).
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { runScenarioFile(t, file) })
	}
}

type scenarioLine struct {
	n    int
	cmd  string
	want []string
}

func readScenarios(t *testing.T, file string) [][]scenarioLine {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]scenarioLine
	var cur []scenarioLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=>"):
			if len(cur) == 0 {
				t.Fatalf("%s:%d: output with no command", file, n)
			}
			text := strings.TrimPrefix(strings.TrimPrefix(line, "=>"), " ")
			cur[len(cur)-1].want = append(cur[len(cur)-1].want, strings.TrimRight(text, " "))
		default:
			cur = append(cur, scenarioLine{n: n, cmd: line})
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func runScenarioFile(t *testing.T, file string) {
	for _, lines := range readScenarios(t, file) {
		var d *DRF
		for _, l := range lines {
			fields := strings.Fields(l.cmd)
			if d == nil {
				cfg := Config{}
				if fields[0] == "exclude" {
					cfg.FairnessExcluded = resources.NewNameSet(fields[1:]...)
					d = NewDRF(cfg)
					continue
				}
				d = NewDRF(cfg)
			}
			got, err := scenarioCommand(d, fields)
			if err != nil {
				got = []string{"error: " + sentinelText(err)}
			}
			if strings.Join(got, "\n") != strings.Join(l.want, "\n") {
				t.Errorf("%s:%d: %s\ngot:\n%s\nwant:\n%s", file, l.n, l.cmd,
					strings.Join(got, "\n"), strings.Join(l.want, "\n"))
			}
		}
	}
}

func sentinelText(err error) string {
	for _, s := range []error{ErrUnknownClient, ErrDuplicateClient, ErrInvalidClient, ErrInvalidWeight, ErrUnknownAgent, ErrNotAllocated} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	return err.Error()
}

// scenarioCommand runs one command and returns its output lines.
func scenarioCommand(d *DRF, f []string) ([]string, error) {
	arg := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	each := func(op func(string) error) error {
		for _, c := range f[1:] {
			if err := op(c); err != nil {
				return err
			}
		}
		return nil
	}
	switch f[0] {
	case "agent":
		d.AddAgent(arg(1), resources.MustParseQuantities(arg(2)))
	case "rmagent":
		return nil, d.RemoveAgent(arg(1))
	case "add":
		return nil, each(d.Add)
	case "remove":
		return nil, each(d.Remove)
	case "activate":
		return nil, each(d.Activate)
	case "deactivate":
		return nil, each(d.Deactivate)
	case "weight":
		w, err := strconv.ParseFloat(arg(2), 64)
		if err != nil {
			return nil, err
		}
		return nil, d.UpdateWeight(arg(1), w)
	case "alloc":
		return nil, d.Allocated(arg(1), arg(2), resources.MustParse(strings.Join(f[3:], " "), ""))
	case "unalloc":
		return nil, d.Unallocated(arg(1), arg(2), resources.MustParse(strings.Join(f[3:], " "), ""))
	case "update":
		old, new, ok := strings.Cut(strings.Join(f[3:], " "), "->")
		if !ok {
			return nil, fmt.Errorf("update wants OLD -> NEW")
		}
		return nil, d.Update(arg(1), arg(2), resources.MustParse(old, ""), resources.MustParse(new, ""))
	case "sort":
		return []string{strings.Join(d.Sort(), " ")}, nil
	case "share":
		return []string{strconv.FormatFloat(d.ShareOf(arg(1)), 'g', -1, 64)}, nil
	case "describe":
		return strings.Split(strings.TrimSuffix(d.Describe(), "\n"), "\n"), nil
	default:
		return nil, fmt.Errorf("unknown command %q", f[0])
	}
	return nil, nil
}
