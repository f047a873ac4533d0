import PersistenceBench
import StoreCatalog

/// The `persistbench` command line as a library: a package that adds its own stores calls `main(adding:)` from its
/// executable, and every command (`run`, `check`, `crash`, `report`, …) knows them beside the built-in stores.
///
/// ```swift
/// import PersistBenchTool
///
/// @main enum FileBench {
///     static func main() { PersistBenchTool.main(adding: [FileItemStore.kind]) }
/// }
/// ```
///
/// The tool starts itself again for every cell (`/proc/self/exe`), so the added stores exist in every child; a
/// counted run needs libOperationCounter.so beside the executable, and `crash --power-loss` libWriteRecorder.so
/// (`swift build -c release --product OperationCounter`, then `--product WriteRecorder`: one product a build).
/// docs/your-own-store.md.
public enum PersistBenchTool {
    /// Runs the command line with `stores` added after the catalogue's.
    ///
    /// Exits with status 2 and one line when a store's name is empty, not kebab-case or already taken.
    public static func main(adding stores: [StoreKind]) {
        PersistBench.main(adding: stores)
    }
}
