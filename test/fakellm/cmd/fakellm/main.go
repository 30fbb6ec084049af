// Command fakellm runs the fake OpenAI-compatible API of package fakellm
// as a separate process, for tests that need one:
//
//	fakellm [-addr 127.0.0.1:0]
//
// It prints "fakellm listening on URL" once ready and stops on SIGINT or
// SIGTERM. Rules and counters are reached under URL/_fakellm/.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"svc/test/fakellm"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (port 0: any free port)")
	flag.Parse()
	s, err := fakellm.Listen(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("fakellm listening on " + s.URL())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	s.Close()
}
