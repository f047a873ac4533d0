// libOperationCounter: an LD_PRELOAD library that counts, in a region a process marks, what does not depend on
// the machine it runs on: heap allocations, durable flushes, write calls to regular files and the bytes they
// wrote; the process's page faults, reads from storage and voluntary waits; and, when the process runs under
// valgrind's callgrind, switches instruction counting on for the region only. Loaded into a cell's process by
// `persistbench run --count`; the tool finds these functions with dlsym, so that a process without the library pays
// nothing.
#pragma once
#include <stdint.h>

// Starts the counted region: remembers the counters and, under callgrind, zeroes its counts and starts
// instrumenting.
void pb_counting_begin(void);

// Pauses it on the calling thread: what that thread does until pb_counting_resume is left out of the region's
// counts (under callgrind, through its collection state); other threads go on counting. For the harness's own
// reads between the timed phase and the end of the region.
void pb_counting_pause(void);

// Resumes the counted region on the calling thread after pb_counting_pause.
void pb_counting_resume(void);

// Ends it: under callgrind, dumps the region's counts (the dump's "totals:" line holds its instructions, and its
// system calls and their times when callgrind collects them) and stops instrumenting; writes the region's
// allocations, flushes, write calls and bytes written to counts[0...3], and the process's minor faults, major
// faults, 512-byte blocks read from storage and voluntary context switches in it (less the paused stretches) to
// counts[4...7].
void pb_counting_end(uint64_t counts[8]);
