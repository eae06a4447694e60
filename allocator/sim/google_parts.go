package sim

import (
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReadGoogleParts reads parts of the task-events table in order as one
// trace, as ReadGoogle reads one: a run submitted in one part and ended in
// a later one is a task, and a record repeated across parts is known as a
// repeat. The parts are read one after the other, line by line; what is
// kept between lines is the runs under way, a few words per task whose
// last run ended within GoogleOptions.Remember, and the tasks made. An
// error names the part (from 1) and the line.
func ReadGoogleParts(parts []io.Reader, opts GoogleOptions) ([]Task, GoogleStats, error) {
	g, err := newGoogleReader(opts)
	if err != nil {
		return nil, GoogleStats{}, err
	}
	for i, r := range parts {
		if err := g.read(r); err != nil {
			return nil, g.stats, fmt.Errorf("part %d: %w", i+1, err)
		}
	}
	return g.finish(), g.stats, nil
}

// ReadGoogleFiles reads the files that pattern names as the parts of one
// trace (see ReadGoogleParts), in the order of their names, which is the
// trace's order for its names part-00000-of-00500.csv.gz and on. The
// pattern is filepath.Glob's, such as
// "task_events/part-0000?-of-00500.csv.gz"; a pattern without '*', '?'
// or '[' is the name of one file. A file whose name ends in .gz is read
// through gzip, as the trace is published. An error names the file and
// the line.
func ReadGoogleFiles(pattern string, opts GoogleOptions) ([]Task, GoogleStats, error) {
	g, err := newGoogleReader(opts)
	if err != nil {
		return nil, GoogleStats{}, err
	}
	paths, err := googleFiles(pattern)
	if err != nil {
		return nil, GoogleStats{}, err
	}
	for _, path := range paths {
		if err := g.readFile(path); err != nil {
			return nil, g.stats, err
		}
	}
	return g.finish(), g.stats, nil
}

// googleFiles returns the files a pattern names, sorted.
func googleFiles(pattern string) ([]string, error) {
	if !strings.ContainsAny(pattern, "*?[") {
		return []string{pattern}, nil // opening it says if it is missing
	}
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("pattern %q matches no file: %w", pattern, fs.ErrNotExist)
	}
	slices.Sort(paths) // Glob sorts within a directory; a pattern may span several
	return paths, nil
}

// readFile reads one part from a file.
func (g *googleReader) readFile(path string) error {
	f, err := OpenGoogleFile(path)
	if err != nil {
		return err
	}
	err = g.read(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", path, cerr)
	} else if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return err
}

// OpenGoogleFile opens a file of the Google trace, through gzip if its
// name ends in .gz, as the trace is published. Closing it closes the
// file.
func OpenGoogleFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // names the file
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gzipFile{zr, f}, nil
}

// gzipFile reads a file through gzip.
type gzipFile struct {
	*gzip.Reader
	f *os.File
}

// Close closes the gzip stream and the file.
func (z gzipFile) Close() error {
	zerr := z.Reader.Close()
	if err := z.f.Close(); err != nil {
		return err
	}
	return zerr
}
