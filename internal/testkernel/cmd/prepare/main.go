// Command prepare extracts the shared test kernel tree (see package
// testkernel) and prints its directory.
package main

import (
	"fmt"
	"os"

	"github.com/autosel-bot/autosel-bot/internal/testkernel"
)

func main() {
	dir, err := testkernel.Prepare()
	if err != nil {
		fmt.Fprintln(os.Stderr, "prepare:", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}
