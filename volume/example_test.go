package volume_test

import (
	"errors"
	"fmt"

	"github.com/allot-go/allot/volume"
)

func ExampleDisk() {
	ssd := &volume.Disk{Source: &volume.Source{Type: volume.Mount, Root: "/mnt/ssd"}}
	pg := &volume.Disk{
		Persistence: &volume.Persistence{ID: "pg-data", Principal: "ops"},
		Volume:      &volume.Volume{ContainerPath: "data", Mode: volume.RW},
	}
	fmt.Println(ssd, ssd.Divisible(), ssd.Validate())
	fmt.Println(pg, pg.IsPersistentVolume(), pg.Validate())

	// The same volume mounted elsewhere is still the same volume.
	elsewhere := pg.Clone()
	elsewhere.Volume.ContainerPath = "/var/lib/pg"
	fmt.Println(pg.Equal(elsewhere))
	// Output:
	// [MOUNT:/mnt/ssd] false <nil>
	// [pg-data:data] true <nil>
	// true
}

func ExampleValidatePersistenceID() {
	for _, id := range []string{"pg-data", "..", "a/b", ""} {
		err := volume.ValidatePersistenceID(id)
		fmt.Printf("%q: %v %v\n", id, errors.Is(err, volume.ErrInvalidPersistenceID), err)
	}
	// Output:
	// "pg-data": false <nil>
	// "..": true volume: invalid persistence id "..": reserved name
	// "a/b": true volume: invalid persistence id "a/b": contains a path separator
	// "": true volume: invalid persistence id: empty
}
