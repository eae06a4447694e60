package sim

import (
	"fmt"
	"iter"
	"time"
)

// taskSource gives a run its tasks in submission order: the workload's
// given and generated tasks (model.tasks, sorted) merged with its
// Workload.Stream, which is read as the run goes, one task ahead of the
// last submitted, so that the run never holds the stream's tasks not yet
// due. At one submission time the given and generated tasks come first,
// then the stream's, each in its own order.
type taskSource struct {
	m     *model
	given int // the next of m.tasks
	pull  func() (Task, error, bool)
	stop  func()
	// head is the stream's next task, read and not yet submitted; read
	// counts the stream's tasks read, last is the last one's submission,
	// and over says the stream has ended.
	head *taskSpec
	read int
	last time.Duration
	over bool
}

func newTaskSource(m *model, stream func() iter.Seq2[Task, error]) *taskSource {
	s := &taskSource{m: m, over: stream == nil}
	if stream != nil {
		s.pull, s.stop = iter.Pull2(stream())
	}
	return s
}

// next returns the next task without taking it, nil when none is left.
func (s *taskSource) next() (*taskSpec, error) {
	if s.head == nil && !s.over {
		if err := s.readStream(); err != nil {
			return nil, err
		}
	}
	var given *taskSpec
	if s.given < len(s.m.tasks) {
		given = &s.m.tasks[s.given]
	}
	if given != nil && (s.head == nil || given.Submit <= s.head.Submit) {
		return given, nil
	}
	return s.head, nil
}

// take takes the task next returned.
func (s *taskSource) take(t *taskSpec) {
	if t == s.head {
		s.head = nil
	} else {
		s.given++
	}
}

// done reports whether every task has been taken.
func (s *taskSource) done() bool {
	return s.given == len(s.m.tasks) && s.head == nil && s.over
}

// readStream reads the stream's next task into head.
func (s *taskSource) readStream() error {
	t, err, ok := s.pull()
	if !ok {
		s.over = true
		s.close()
		return nil
	}
	if err != nil {
		return fmt.Errorf("task stream, after %d tasks: %w", s.read, err)
	}
	s.read++
	spec, err := s.m.resolveStreamed(t, s.read, s.last)
	if err != nil {
		return err
	}
	s.last, s.head = t.Submit, &spec
	return nil
}

// close stops the stream's reading, at its end or the run's.
func (s *taskSource) close() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// resolveStreamed checks the n-th task of a stream, submitted after one
// at last, and resolves it as addTasks resolves the given ones. Its
// framework and role were met when compile read the stream; a stream that
// reads otherwise the next time is an error.
func (m *model) resolveStreamed(t Task, n int, last time.Duration) (taskSpec, error) {
	if err := checkStreamed(t, n, last); err != nil {
		return taskSpec{}, err
	}
	fw, ok := m.fwIndex[t.Framework]
	if !ok {
		return taskSpec{}, invalid("task stream: task %d (%q of framework %q): a framework its first reading did not name: want a stream that reads the same every time", n, t.ID, t.Framework)
	}
	if t.Role == "" {
		t.Role = m.frameworks[fw].Roles[0]
	}
	if _, ok := m.roleIndex[t.Role]; !ok {
		return taskSpec{}, invalid("task stream: task %d (%q of framework %q): role %q its first reading did not name: want a stream that reads the same every time", n, t.ID, t.Framework, t.Role)
	}
	return m.resolveTask(t, fw), nil
}

// checkStreamed checks the n-th task of a stream: as a given task, and
// submitted no earlier than the task before, at last, so that a run can
// take the stream's tasks as they come.
func checkStreamed(t Task, n int, last time.Duration) error {
	if err := checkTask(t); err != nil {
		return fmt.Errorf("task stream: task %d: %w", n, err)
	}
	if t.Submit < last {
		return invalid("task stream: task %d (%q of framework %q) submitted at %s, before the task before it (at %s): want the stream in order of submission", n, t.ID, t.Framework, t.Submit, last)
	}
	return nil
}

// scanStream reads a workload's stream once, before its runs: it checks
// every task and returns how many there are and, for resolveFrameworks,
// one task per framework and role they name (the first), so that the
// frameworks and roles of a run are known from its start, as those of
// given tasks are. It keeps nothing else of the tasks.
func scanStream(stream func() iter.Seq2[Task, error]) (n int, names []Task, err error) {
	type name struct{ fw, role string }
	seen := map[name]bool{}
	var last time.Duration
	for t, err := range stream() {
		if err != nil {
			return n, nil, fmt.Errorf("task stream, after %d tasks: %w", n, err)
		}
		n++
		if err := checkStreamed(t, n, last); err != nil {
			return n, nil, err
		}
		last = t.Submit
		if k := (name{t.Framework, t.Role}); !seen[k] {
			seen[k] = true
			names = append(names, Task{Framework: t.Framework, Role: t.Role, ID: t.ID})
		}
	}
	return n, names, nil
}
