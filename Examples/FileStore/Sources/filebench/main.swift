import FileStore
import PersistBenchTool

// persistbench's every command, with `files` beside the built-in stores: `filebench run --stores files,sqlite`.
PersistBenchTool.main(adding: [FileItemStore.kind])
