package offer

import (
	"errors"
	"fmt"

	"github.com/allot-go/allot/resources"
)

// OperationJSON is an operation in JSON, as the allocator's journal and a
// host's own records write it: the type by its Mesos name, resources in
// the text format (read back with "*" as the default role, so that they
// round-trip exactly), fields an operation does not use left out:
//
//	{"type":"LAUNCH","tasks":[{"id":"t1","resources":"cpus:1; mem:128"}]}
//	{"type":"RESERVE","resources":"cpus(reservations: [(DYNAMIC,web,ops)]):2"}
//	{"type":"SHRINK_VOLUME","volume":"disk(db)[id:data,path:/v]:100","subtract":"50"}
type OperationJSON struct {
	Type      string     `json:"type"`
	Tasks     []TaskJSON `json:"tasks,omitempty"`
	Executor  string     `json:"executor,omitempty"`
	Resources string     `json:"resources,omitempty"`
	Source    string     `json:"source,omitempty"`
	Volumes   string     `json:"volumes,omitempty"`
	Volume    string     `json:"volume,omitempty"`
	Addition  string     `json:"addition,omitempty"`
	Subtract  string     `json:"subtract,omitempty"`
}

// TaskJSON is a task of a LAUNCH in JSON.
type TaskJSON struct {
	ID        string `json:"id"`
	Resources string `json:"resources"`
}

// OperationToJSON returns op's JSON form (pointers to operations are
// followed), and nil for a nil operation or one this package does not
// know, which is JSON's null.
func OperationToJSON(op Operation) *OperationJSON {
	o, err := deref(op)
	if err != nil {
		return nil
	}
	switch o := o.(type) {
	case Launch:
		j := &OperationJSON{Type: "LAUNCH", Executor: textOf(o.Executor), Tasks: []TaskJSON{}}
		for _, t := range o.Tasks {
			j.Tasks = append(j.Tasks, TaskJSON{ID: t.ID, Resources: textOf(t.Resources)})
		}
		return j
	case Reserve:
		return &OperationJSON{Type: "RESERVE", Resources: textOf(o.Resources), Source: textOf(o.Source)}
	case Unreserve:
		return &OperationJSON{Type: "UNRESERVE", Resources: textOf(o.Resources)}
	case Create:
		return &OperationJSON{Type: "CREATE", Volumes: textOf(o.Volumes)}
	case Destroy:
		return &OperationJSON{Type: "DESTROY", Volumes: textOf(o.Volumes)}
	case GrowVolume:
		return &OperationJSON{Type: "GROW_VOLUME", Volume: o.Volume.String(), Addition: textOf(o.Addition)}
	case ShrinkVolume:
		return &OperationJSON{Type: "SHRINK_VOLUME", Volume: o.Volume.String(), Subtract: o.Subtract.String()}
	}
	return nil
}

// Operation returns the operation j describes, and nil for a nil j (JSON's
// null). It reads the text of the resources only: whether the operation is
// valid on an offer is for Validate and Apply to say. An unknown type
// wraps ErrUnsupported; resources that do not parse are an error naming
// the field.
func (j *OperationJSON) Operation() (Operation, error) {
	if j == nil {
		return nil, nil
	}
	var errs []error
	res := func(field, s string) resources.Resources {
		if s == "" {
			return resources.Resources{}
		}
		r, err := resources.Parse(s, "*")
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
		return r
	}
	switch j.Type {
	case "LAUNCH":
		l := Launch{Executor: res("executor", j.Executor)}
		for i, t := range j.Tasks {
			l.Tasks = append(l.Tasks, Task{ID: t.ID, Resources: res(fmt.Sprintf("task %d", i), t.Resources)})
		}
		return l, errors.Join(errs...)
	case "RESERVE":
		return Reserve{Resources: res("resources", j.Resources), Source: res("source", j.Source)}, errors.Join(errs...)
	case "UNRESERVE":
		return Unreserve{Resources: res("resources", j.Resources)}, errors.Join(errs...)
	case "CREATE":
		return Create{Volumes: res("volumes", j.Volumes)}, errors.Join(errs...)
	case "DESTROY":
		return Destroy{Volumes: res("volumes", j.Volumes)}, errors.Join(errs...)
	case "GROW_VOLUME":
		g := GrowVolume{Volume: oneOf(res("volume", j.Volume), j.Volume, &errs), Addition: res("addition", j.Addition)}
		return g, errors.Join(errs...)
	case "SHRINK_VOLUME":
		s := ShrinkVolume{Volume: oneOf(res("volume", j.Volume), j.Volume, &errs)}
		q, err := resources.ParseQuantities("x:" + j.Subtract)
		if err != nil {
			errs = append(errs, fmt.Errorf("subtract: %w", err))
		}
		s.Subtract = q.Scalar("x")
		return s, errors.Join(errs...)
	}
	return nil, fmt.Errorf("%w: unknown operation type %q", ErrUnsupported, j.Type)
}

// oneOf returns the one resource of r, or records that text is not one.
func oneOf(r resources.Resources, text string, errs *[]error) resources.Resource {
	if r.Len() != 1 {
		*errs = append(*errs, fmt.Errorf("volume %q is not one resource", text))
		return resources.Resource{}
	}
	return r.Slice()[0]
}

// textOf is the text of r, empty for none.
func textOf(r resources.Resources) string {
	if r.IsEmpty() {
		return ""
	}
	return r.String()
}
