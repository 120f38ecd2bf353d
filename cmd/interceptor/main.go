package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], &streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, exit: os.Exit}))
}
