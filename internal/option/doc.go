// Package option parses the backend options of the simulated networks
// (conduit.JobConfig.Options, PGAS_OPTIONS, pgasbench's --option).
//
// A backend declares each option once, in a Table: its name, its help
// text, its kind with its range (Int, Bool, Float, Enum, Bytes, Dims,
// NodeList, String, or Custom with the backend's own parse function) and
// where its value goes in the backend's options struct T. The declarations
// of options that several backends share (internal/fabric's) are written
// for their own struct and lifted into each backend's (Lift). The table
// also declares which options exclude each other (AtMostOne) and which need
// another (Requires).
//
// Table.Parse applies these rules the same way for every backend:
//
//   - Whitespace around a name and around a value is ignored; two names
//     that differ only by it are the same option given twice, an error.
//   - An empty value is an error unless the option allows it (AllowEmpty).
//   - A value outside its option's range is an error; floats must be
//     finite.
//   - An unknown name is an error listing every known one.
//   - Every problem is reported, not only the first: the options' own
//     errors sorted by option name, then the rules' in the order the table
//     declares them, in one *Error that names the backend, each option and
//     its value as given: `gemini: option torus="0x0x0": ...`.
//
// Every kind can write a value back as text that parses to the same value
// (Option.Format), except a Custom option declared without a format
// function.
package option
