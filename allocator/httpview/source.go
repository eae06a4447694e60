package httpview

import (
	"sync"

	"github.com/allot-go/allot/allocator"
	"github.com/allot-go/allot/allocator/runner"
	"github.com/allot-go/allot/offer"
)

// Viewer is what the handler reads: the views and the explanations of the
// latest run. *allocator.Allocator is one.
type Viewer interface {
	Roles() []allocator.RoleView
	Agents() []allocator.AgentView
	Frameworks() []allocator.FrameworkView
	Offers() []offer.Offer
	Explain(frameworkID string) (allocator.Explanation, error)
	ExplainRole(role string) (allocator.Explanation, error)
}

// Source lends the handler a Viewer for the length of one call to View,
// under whatever lock guards it, and returns what the call returns (or an
// error of its own, such as runner.ErrClosed, without calling it).
type Source interface {
	View(func(Viewer) error) error
}

// SourceFunc is a Source made of a function.
type SourceFunc func(func(Viewer) error) error

// View calls f.
func (f SourceFunc) View(view func(Viewer) error) error { return f(view) }

// FromRunner returns the Source that reads r's allocator with Runner.Do.
func FromRunner(r *runner.Runner) Source {
	return SourceFunc(func(view func(Viewer) error) error {
		return r.Do(func(a *allocator.Allocator) error { return view(a) })
	})
}

// Locked returns the Source that reads v while it holds mu. The program
// that drives v holds mu around its own calls.
func Locked(mu sync.Locker, v Viewer) Source {
	return SourceFunc(func(view func(Viewer) error) error {
		mu.Lock()
		defer mu.Unlock()
		return view(v)
	})
}
