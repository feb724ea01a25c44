package smp

import "syscall"

// osYield gives the processor to another thread that is ready to run, if
// the operating system has one: a PE whose thread was descheduled for
// another program's.
func osYield() { _, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
