package sim

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

// csvHeader is the header line of the CSV trace format.
var csvHeader = []string{"time", "framework", "role", "task", "resources", "duration"}

// ReadCSV reads a trace in the CSV trace format (see the package doc). A
// line that does not read is an error wrapping ErrInvalidTrace that names
// the line and the field.
func ReadCSV(r io.Reader) ([]Task, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.Comment = '#'
	cr.FieldsPerRecord = len(csvHeader)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, traceError(err, 1, "header")
	}
	if strings.Join(head, ",") != strings.Join(csvHeader, ",") {
		line, _ := cr.FieldPos(0)
		return nil, fmt.Errorf("%w: line %d: header %q, want %q", ErrInvalidTrace, line, strings.Join(head, ","), strings.Join(csvHeader, ","))
	}
	var tasks []Task
	firstLine := map[[2]string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return tasks, nil
		}
		if err != nil {
			return nil, traceError(err, 0, "")
		}
		line, _ := cr.FieldPos(0)
		t, err := csvTask(rec)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, line, err)
		}
		key := [2]string{t.Framework, t.ID}
		if first, dup := firstLine[key]; dup {
			return nil, fmt.Errorf("%w: line %d: task %q of framework %q is already submitted on line %d", ErrInvalidTrace, line, t.ID, t.Framework, first)
		}
		firstLine[key] = line
		tasks = append(tasks, t)
	}
}

// traceError wraps an error of the CSV reader, which names the line.
func traceError(err error, line int, what string) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%w: line %d: %w", ErrInvalidTrace, pe.Line, pe.Err)
	}
	if err == io.EOF {
		return fmt.Errorf("%w: line %d: no %s", ErrInvalidTrace, line, what)
	}
	return fmt.Errorf("%w: %w", ErrInvalidTrace, err)
}

// csvTask reads one record.
func csvTask(rec []string) (Task, error) {
	submit, err := parseSeconds(rec[0])
	if err != nil {
		return Task{}, fmt.Errorf("time %q: %w", rec[0], err)
	}
	t := Task{Framework: rec[1], Role: rec[2], ID: rec[3], Submit: submit}
	switch {
	case !validName(t.Framework):
		return t, fmt.Errorf("framework %q: want a non-empty name without control characters", t.Framework)
	case !validName(t.ID):
		return t, fmt.Errorf("task %q: want a non-empty id without control characters", t.ID)
	}
	if t.Role != "" {
		if err := reservation.ValidateRole(t.Role); err != nil {
			return t, fmt.Errorf("role: %w", err)
		}
	}
	if t.Resources, err = resources.ParseQuantities(rec[4]); err != nil {
		return t, fmt.Errorf("resources %q: %w", rec[4], err)
	}
	if t.Resources.IsEmpty() {
		return t, fmt.Errorf("resources %q: none", rec[4])
	}
	if !t.Resources.Within(resources.MustScalar(maxAmount)) {
		return t, fmt.Errorf("resources %q: an amount above %v", rec[4], maxAmount)
	}
	if t.Duration, err = parseSeconds(rec[5]); err != nil {
		return t, fmt.Errorf("duration %q: %w", rec[5], err)
	}
	if t.Duration == 0 {
		return t, fmt.Errorf("duration %q: want above zero", rec[5])
	}
	return t, nil
}

// parseSeconds reads a number of seconds written as digits with up to
// nine decimals, exactly: no float rounding, no exponent, no sign.
func parseSeconds(s string) (time.Duration, error) {
	whole, frac, dotted := strings.Cut(s, ".")
	if whole == "" || (dotted && frac == "") {
		return 0, errors.New("want digits, with up to nine decimals")
	}
	if len(frac) > 9 {
		return 0, errors.New("more than nine decimals")
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, errors.New("want digits, with up to nine decimals")
		}
	}
	secs, err := strconv.ParseUint(whole, 10, 64)
	if err != nil || secs > uint64(maxTime/time.Second) {
		return 0, fmt.Errorf("more than %d seconds", maxTime/time.Second)
	}
	nanos, _ := strconv.ParseUint(frac+strings.Repeat("0", 9-len(frac)), 10, 64) // nine digits at most
	d := time.Duration(secs)*time.Second + time.Duration(nanos)
	if d > maxTime {
		return 0, fmt.Errorf("more than %d seconds", maxTime/time.Second)
	}
	return d, nil
}

// formatSeconds writes d as parseSeconds reads it, exactly.
func formatSeconds(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if frac := d % time.Second; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%09d", int64(frac)), "0")
	}
	return s
}

// WriteCSV writes tasks in the CSV trace format, in their order: ReadCSV
// reads them back the same. Tasks must have times and durations of zero or
// more.
func WriteCSV(w io.Writer, tasks []Task) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, t := range tasks {
		rec := []string{formatSeconds(t.Submit), t.Framework, t.Role, t.ID, t.Resources.String(), formatSeconds(t.Duration)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
