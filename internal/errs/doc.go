// Package errs holds the sentinel errors shared by the runtime's layers, so
// that errors.Is matches the same sentinel whether a bad argument was caught
// by pgas, am or the transport. pgas re-exports them.
package errs
