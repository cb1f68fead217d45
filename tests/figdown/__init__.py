"""FigDown engine tests (a package, so test module names cannot clash with other suites)."""
