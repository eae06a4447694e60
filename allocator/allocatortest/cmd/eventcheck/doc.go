// Command eventcheck runs the allocator's random-event properties for as
// long as one asks, on every core: sequence after sequence of generated
// events, each run through an allocatortest.Harness with Fast checks (every
// property after every event). It prints a progress line now and then,
// stops at the first violation, shrinks the sequence that showed it to the
// shortest that still fails, and prints the violation and the command line
// that replays it.
//
// # Usage
//
// A million sequences on every core, the configurations of
// allocatortest.Configs taken in turn:
//
//	go run ./allocator/allocatortest/cmd/eventcheck -sequences 1000000
//
// The flags:
//
//	-sequences n   sequences to run (default 1000000)
//	-duration d    stop after d, whatever is left (default: no limit)
//	-workers n     sequences run at once (default: GOMAXPROCS)
//	-seed s        the run's seed: sequence i is generated from s and i
//	               alone, so -seed s -sequence i runs it again (default 1)
//	-config name   run one configuration only (default: all, in turn)
//	-events n      most events in a sequence (default 80)
//	-every n       steps between two whole-state checks (default 32)
//	-progress d    time between progress lines (default 10s)
//	-gc percent    the garbage collector's GOGC (default 800)
//	-cpuprofile f  write a CPU profile of the run to file f
//	-sequence i    run only sequence i of the seed, with every check after
//	               every step, and print its log
//	-replay text   run the sequence text ("seed N; kind a b c d; ...", or
//	               @file for a file in the text ParseSequence reads) with
//	               every check after every step, and print its log
//
// A progress line reads
//
//	eventcheck: 120000 of 1000000 sequences (12.0%), 7312345 events, 40612 events/s, 676 sequences/s, 0 violations, 3m0s, about 22m0s left
//
// On a violation, eventcheck prints it, the shrunk sequence, and a line to
// replay it:
//
//	go run ./allocator/allocatortest/cmd/eventcheck -config 'all events' -replay 'seed 9876; add-agent 1 2 3 4; ...'
//
// It exits 0 when every sequence passed, 1 on a violation, 2 on bad flags.
package main
