//go:build !purego

#include "textflag.h"

// func Lines(p unsafe.Pointer, n uintptr)
//
// One PREFETCHT0 for every 64-byte line that [p, p+n) touches (none when
// n is 0): the loop starts at p's line, so the last line is asked for even
// when p is not aligned.
TEXT ·Lines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JZ   done
	ADDQ AX, CX
	ANDQ $~63, AX

loop:
	CMPQ AX, CX
	JAE  done
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  loop

done:
	RET
