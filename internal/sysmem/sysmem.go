package sysmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Total returns the memory available to the process in bytes, and false
// when the system does not say (then callers apply no limit).
func Total() (int64, bool) {
	total, ok := memTotal("/proc/meminfo")
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if lim, lok := readLimit(f); lok && (!ok || lim < total) {
			total, ok = lim, true
		}
	}
	return total, ok
}

// memTotal reads MemTotal from a meminfo file.
func memTotal(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) != 2 || fs[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// readLimit reads a control group's memory limit: a number of bytes, or
// "max" (none). Version 1 writes a huge number for none.
func readLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0, false
	}
	return v, true
}

// Resident returns the process's resident memory in bytes, and false
// when the system does not say.
func Resident() (int64, bool) {
	return statmResident("/proc/self/statm", int64(os.Getpagesize()))
}

// statmResident reads the resident pages (the second field) of a statm
// file.
func statmResident(path string, page int64) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	fs := strings.Fields(string(b))
	if len(fs) < 2 {
		return 0, false
	}
	n, err := strconv.ParseInt(fs[1], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * page, true
}
