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
