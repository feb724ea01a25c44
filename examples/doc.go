// Package examples holds the tests that build and run every example program
// (hello, ring, histogram, jacobi, integrity) on each backend and check
// their answers; each program is a package of its own below this one.
package examples
