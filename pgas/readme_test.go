package pgas_test

import (
	"os"
	"strings"
	"testing"

	"github.com/gopgas/gopgas/pgas"
)

// TestREADMEConfigurationTable keeps the README's configuration table equal
// to the settings the runtime really has.
func TestREADMEConfigurationTable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), pgas.SettingsTable()) {
		t.Errorf("README.md does not contain the current settings table; regenerate it from pgas.SettingsTable():\n%s", pgas.SettingsTable())
	}
}

// TestREADMECommands checks that CI runs the README's test command.
func TestREADMECommands(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	const testCmd = "go test -race ./..."
	if !strings.Contains(string(readme), "```sh\n"+testCmd+"\n```") {
		t.Errorf("README.md does not give %q as the test command", testCmd)
	}
	if !strings.Contains(string(ci), "\n"+testCmd+"\n") {
		t.Errorf(".ci/run does not run %q", testCmd)
	}
}
