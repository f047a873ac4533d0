import FileStore
import PersistBenchTool

// persistbench's every command, with `files` and `files+worker` beside the built-in stores:
// `filebench run --stores files,files+worker,sqlite`.
PersistBenchTool.main(adding: [FileItemStore.kind, WorkerFileItemStore.kind])
