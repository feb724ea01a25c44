package torus_test

import "flag"

// The data-driven tests' scripts are testdata/*.txt (the format is in
// testdata/README.md and internal/scripttest; the commands are in
// script_cmds_test.go). -rewrite writes what the code prints back into them.
var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/*.txt from what the code prints")
