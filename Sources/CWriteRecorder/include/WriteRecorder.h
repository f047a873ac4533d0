// libWriteRecorder: an LD_PRELOAD library that records every write, flush, truncation, creation, rename and
// unlink a process makes to the files under one directory, and can fail one of them (ENOSPC, EIO). Loaded into
// `persistbench crash --power-loss` writers; see recorder.c for the environment it reads and the log format.
// It exports only the libc functions it interposes.
