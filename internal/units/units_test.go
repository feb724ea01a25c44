package units

import (
	"errors"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"4096", 4096}, {" 12 ", 12}, {"7B", 7}, {"7 b", 7},
		{"2K", 2048}, {"2k", 2048}, {"2KB", 2048}, {"2kB", 2048}, {"2KiB", 2048}, {"2Ki", 2048}, {"2 KiB", 2048},
		{"4M", 4 << 20}, {"4MiB", 4 << 20}, {"4mb", 4 << 20}, {"128K", 131072},
		{"1G", 1 << 30}, {"1GB", 1 << 30}, {"1T", 1 << 40}, {"1TiB", 1 << 40},
		{"4194304T", 1 << 62},
	} {
		got, err := ParseBytes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestParseBytesBad(t *testing.T) {
	for _, in := range []string{"", " ", "K", "-1", "+4", "1.5M", "4X", "4KX", "4KiBB", "4iB", "0x10", "4 K B",
		"4194305T", "99999999999999999999", "4611686018427387905"} {
		if v, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, v)
		}
	}
	if _, err := ParseBytes("4X"); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseBytes(4X): %v does not wrap ErrSyntax", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {1000, "1000"}, {4096, "4KiB"}, {64 << 20, "64MiB"}, {3 << 30, "3GiB"}, {1 << 40, "1TiB"}, {-5, "-5"}, {1536, "1536"}} {
		if got := FormatBytes(c.n); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := HumanBytes(1536); got != "1.5 KiB" {
		t.Errorf("HumanBytes(1536) = %q", got)
	}
	if got := HumanBytes(350 * 1024); got != "350 KiB" {
		t.Errorf("HumanBytes(350 KiB) = %q", got)
	}
}

// FuzzParseBytes checks that an accepted size is in range and that its
// formatted form parses back to the same value.
func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"0", "4096", "2K", "2KiB", "64M", "1G", "1T", " 7 B ", "4X", "-1", "4194304T", "1.5M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err != nil {
			return
		}
		if n < 0 || n > MaxBytes {
			t.Fatalf("ParseBytes(%q) = %d: out of [0, 2^62]", s, n)
		}
		back, err := ParseBytes(FormatBytes(n))
		if err != nil || back != n {
			t.Fatalf("ParseBytes(FormatBytes(%d)=%q) = %d, %v", n, FormatBytes(n), back, err)
		}
	})
}
