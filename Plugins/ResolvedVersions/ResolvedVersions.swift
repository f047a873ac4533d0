import Foundation
import PackagePlugin

/// Gives a target the versions its package's dependencies resolved to, as SwiftPM resolved them
/// (`ResolvedVersions.swift`: `resolvedVersions["grdb.swift"] == "7.10.0"`), so that a report names the version
/// that was built rather than one written by hand.
@main struct ResolvedVersions: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let pairs = context.package.dependencies.map { dependency in
            "\(dependency.package.id)=\(Self.version(of: dependency.package))"
        }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("ResolvedVersions.swift")
        return [
            .buildCommand(
                displayName: "Writing the resolved versions of \(context.package.displayName)'s dependencies",
                executable: try context.tool(named: "ResolvedVersionWriter").url,
                arguments: [output.path] + pairs, outputFiles: [output])
        ]
    }

    private static func version(of package: Package) -> String {
        switch package.origin {
        case .repository(_, let displayVersion, _): displayVersion
        case .registry(_, let displayVersion): displayVersion
        case .local: "local checkout"
        case .root: "root"
        @unknown default: "unknown"
        }
    }
}
