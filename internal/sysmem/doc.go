// Package sysmem tells how much memory the process may use: the machine's
// physical memory, or its control group's limit when that is lower.
package sysmem
