// Package scripttest runs data-driven tests: each file in a package's
// testdata/ is a script of commands, each followed by a line "----" and the
// output the command must print, up to the next blank line; lines starting
// with # are comments. A test gives Run an interpreter of its commands; Run
// compares what each command prints with the script, or, when asked to
// rewrite, writes the outputs back into the script. The topology packages
// (gemini/torus, aries/dragonfly) describe their commands in their
// testdata/README.md.
package scripttest
