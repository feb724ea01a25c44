package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParsers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if v, ok := memTotal(write("meminfo", "MemFree: 1 kB\nMemTotal:       24576000 kB\n")); !ok || v != 24576000<<10 {
		t.Errorf("memTotal = %d, %v", v, ok)
	}
	if _, ok := memTotal(write("bad", "MemTotal: lots\n")); ok {
		t.Error("memTotal accepted a bad line")
	}
	if v, ok := readLimit(write("max", "2147483648\n")); !ok || v != 2<<30 {
		t.Errorf("readLimit = %d, %v", v, ok)
	}
	for _, s := range []string{"max\n", "9223372036854771712\n", "0\n", ""} {
		if _, ok := readLimit(write("none", s)); ok {
			t.Errorf("readLimit(%q) gave a limit", s)
		}
	}
	if v, ok := statmResident(write("statm", "123456 2048 512 10 0 4000 0\n"), 4096); !ok || v != 2048*4096 {
		t.Errorf("statmResident = %d, %v", v, ok)
	}
	for _, s := range []string{"", "12\n", "12 x 3\n", "12 -1 3\n"} {
		if _, ok := statmResident(write("badstatm", s), 4096); ok {
			t.Errorf("statmResident(%q) gave a size", s)
		}
	}
}

func TestTotal(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	v, ok := Total()
	if !ok || v < 64<<20 {
		t.Errorf("Total = %d, %v", v, ok)
	}
}

func TestResident(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm")
	}
	before, ok := Resident()
	if !ok || before <= 0 {
		t.Fatalf("Resident = %d, %v", before, ok)
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	after, _ := Resident()
	if after-before < 32<<20 {
		t.Errorf("touching 64 MiB moved Resident from %d to %d", before, after)
	}
	_ = b[len(b)-1]
}
