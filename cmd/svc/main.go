// Command svc is the service's single binary: the API server and the
// operator commands. Run "svc --help" for the list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries an exit code: 2 for usage errors, 1 for failures.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

func cliCommands() []command {
	return []command{
		{"serve", "apply migrations, then serve the API, workers and projections", runServe},
		{"migrate", "apply pending migrations and exit", runMigrate},
		{"projections list", "each projection with its checkpoint and lag", runProjectionsList},
		{"projections rebuild", "rebuild a projection (NAME or --all) from the event log", runProjectionsRebuild},
		{"replay billing", "recompute an org's (or every org's) billing from the log and compare (exit 1 on a difference)", runReplayBilling},
		{"events tail", "print events as JSON lines in global order", runEventsTail},
		{"credits grant", "append an operator credit grant", runCreditsGrant},
		{"org set-tier", "append a manual tier change", runOrgSetTier},
		{"version", "print the version", runVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "svc %s: workflow deliverable service\n\nUsage:\n", version)
	for _, c := range cliCommands() {
		fmt.Fprintf(w, "  svc %-22s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"svc COMMAND --help\" for a command's flags. Configuration comes from the environment (DATABASE_URL, SVC_ADDR, ...): see the README.")
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err == nil {
		return
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	fmt.Fprintln(os.Stderr, "svc: "+err.Error())
	os.Exit(code)
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		usage(os.Stderr)
		return usageErr("no command given")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(os.Stdout)
		return nil
	}
	for _, c := range cliCommands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			return c.run(ctx, args[len(words):])
		}
	}
	// a group name alone ("svc projections") or with --help lists its commands
	var group []string
	for _, c := range cliCommands() {
		if strings.HasPrefix(c.name, args[0]+" ") {
			group = append(group, fmt.Sprintf("  svc %-22s %s", c.name, c.summary))
		}
	}
	if len(group) > 0 {
		if len(args) > 1 && (args[1] == "--help" || args[1] == "-h") {
			fmt.Println(strings.Join(group, "\n"))
			return nil
		}
		return usageErr("unknown %s command %q; one of:\n%s", args[0], strings.Join(args[1:], " "), strings.Join(group, "\n"))
	}
	return usageErr("unknown command %q (see svc --help)", args[0])
}

// parseFlags parses args with fs, flags and positional arguments in any
// order ("rebuild billing --batch 10" as well as "rebuild --batch 10 billing");
// the positional ones are returned. --help prints usage and ends the command
// successfully; a bad flag is a one-line usage error (exit 2).
func parseFlags(fs *flag.FlagSet, args []string, synopsis string) (positional []string, helped bool, err error) {
	fs.SetOutput(io.Discard)
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Printf("Usage: svc %s\n\n", synopsis)
				fs.SetOutput(os.Stdout)
				fs.PrintDefaults()
				return nil, true, nil
			}
			return nil, false, usageErr("%s: %v (see svc %s --help)", fs.Name(), err, fs.Name())
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, false, nil
		}
		if rest[0] == "--" {
			return append(positional, rest[1:]...), false, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func runVersion(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if helped, err := noArgs(fs, args, "version\n\nPrints the version of this binary."); helped || err != nil {
		return err
	}
	fmt.Println(version)
	return nil
}

// noArgs is parseFlags for a command that takes no positional argument.
func noArgs(fs *flag.FlagSet, args []string, synopsis string) (helped bool, err error) {
	rest, helped, err := parseFlags(fs, args, synopsis)
	if err == nil && !helped && len(rest) > 0 {
		return false, usageErr("%s: unexpected argument %q (see svc %s --help)", fs.Name(), rest[0], fs.Name())
	}
	return helped, err
}
