package offer

import (
	"errors"
	"testing"
)

// A task may use the resources of several providers (a provider's disk
// with the agent's cpus), as Mesos's task validation allows; the other
// operations act on one provider's resources at a time.
func TestLaunchMayMixProviders(t *testing.T) {
	ctx := Context{Roles: []string{"web"}}
	offered := rs("cpus(allocated: web):4;mem(allocated: web)(provider: rp1):64;disk(allocated: web)(provider: rp2):10")
	task := Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus(allocated: web):1;mem(allocated: web)(provider: rp1):64;disk(allocated: web)(provider: rp2):10")}}}
	if err := Validate(task, ctx); err != nil {
		t.Fatalf("Validate(%v): %v", task, err)
	}
	// LAUNCH converts nothing: the offer is what it was.
	after, err := Apply(offered, task)
	if err != nil {
		t.Fatalf("Apply(%v): %v", task, err)
	}
	if !after.Equal(offered) {
		t.Fatalf("after LAUNCH %v, want %v", after, offered)
	}
	executor := Launch{Tasks: []Task{{ID: "t1", Resources: rs("cpus(allocated: web):1")}}, Executor: rs("mem(allocated: web)(provider: rp1):32;disk(allocated: web)(provider: rp2):5")}
	if err := Validate(executor, ctx); err != nil {
		t.Fatalf("Validate(%v): %v", executor, err)
	}
	// A resource of the launch is still checked on its own.
	bad := Launch{Tasks: []Task{{ID: "t1", Resources: rs("gpus(allocated: web)(provider: rp1):0.5")}}}
	if err := Validate(bad, ctx); !errors.Is(err, ErrInvalidResources) {
		t.Fatalf("Validate(%v) = %v, want %v", bad, err, ErrInvalidResources)
	}
	reserve := Reserve{Resources: rs("cpus(allocated: web)(reservations: [(DYNAMIC,web,ops)]):1;mem(allocated: web)(reservations: [(DYNAMIC,web,ops)])(provider: rp1):64")}
	if err := Validate(reserve, ctx); !errors.Is(err, ErrMultipleProviders) {
		t.Fatalf("Validate(%v) = %v, want %v", reserve, err, ErrMultipleProviders)
	}
}
