// Command resources parses, adds, reserves and prints resources: a first look
// at the resources package.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/allot-go/allot/reservation"
	"github.com/allot-go/allot/resources"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	agent, err := resources.Parse("cpus:4;mem:2048;disk:10000;ports:[31000-32000]", "*")
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "agent:          ", agent)

	static, err := resources.Parse("cpus(analytics):2;mem(analytics):1024", "*")
	if err != nil {
		return err
	}
	total := agent.Plus(static)
	fmt.Fprintln(w, "with static:    ", total)
	fmt.Fprintln(w, "quantities:     ", total.Quantities())

	wanted := resources.MustParse("cpus:1;mem:512", "*")
	reserved, err := wanted.PushReservation(reservation.Reservation{
		Type: reservation.Dynamic, Role: "tenant1", Principal: "ops",
	})
	if err != nil {
		return err
	}
	total = total.Minus(wanted).Plus(reserved)
	fmt.Fprintln(w, "reserved:       ", total)

	refined, err := reserved.PushReservation(reservation.Reservation{
		Type: reservation.Dynamic, Role: "tenant1/private", Principal: "ops",
	})
	if err != nil {
		return err
	}
	total = total.Minus(reserved).Plus(refined)
	fmt.Fprintln(w, "refined:        ", total)
	fmt.Fprintln(w, "for tenant1:    ", total.AllocatableTo("tenant1"))
	fmt.Fprintln(w, "for tenant1/private/db:", total.AllocatableTo("tenant1/private/db"))

	popped, err := refined.PopReservation()
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "unreserved once:", popped)

	if _, err := resources.Parse("cpus:-1", "*"); err != nil {
		fmt.Fprintln(w, "rejected:       ", err)
	}
	return nil
}
