import PersistBenchTool

// The tool with the catalogue's stores only: a package that benchmarks its own store has a main like this one that
// adds them (docs/your-own-store.md).
PersistBenchTool.main(adding: [])
