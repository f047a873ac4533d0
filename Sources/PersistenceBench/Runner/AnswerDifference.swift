import Foundation

/// The first answer of a (workload, scale) that differs between stores whose digests disagreed, and each store's
/// answer there: found by asking the group's questions again in this process, each answer noted (`AnswerTrace`).
///
/// The re-ask runs each store once on a fresh fixture, untimed, with the run's seed, scale and count of steps, and
/// holds every store against the one whose digest most stores gave (ties: the first by name). A difference the
/// re-ask does not show (none in what it compared) is said as such: a store whose answers vary between runs.
package struct AnswerDifference: Codable, Equatable, Sendable {
    package var workload: String
    package var scale: Scale
    /// The store the others are held against.
    package var reference: String
    /// The 1-based position of the first answer that differs among the digested answers, in the order they were
    /// digested (a page's items come before the page's own line); nil when none did in what was compared.
    package var position: Int?
    /// How many answers of the reference were compared.
    package var compared: Int
    /// Each store's answer at `position` ("no answer": it gave fewer), or its re-ask's error.
    package var answers: [String: String]
    /// Why the comparison is partial (the trace was cut), if it is.
    package var note: String?

    /// One line: "answer 17 of 2000: sqlite item 42 …; files none".
    package var summary: String {
        let listed = answers.sorted { ($0.key == reference ? "" : $0.key) < ($1.key == reference ? "" : $1.key) }
            .map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        let head =
            position.map { "first differing answer, \($0) of \(compared) compared: " }
            ?? "asked again, the first \(compared) answers agree: "
        return head + listed + (note.map { " (\($0))" } ?? "")
    }

    /// The difference in `check`'s group, asked again in a scratch directory under `scratch` (removed after).
    package static func find(
        _ check: DigestCheck, stores: [StoreKind], configuration: RunConfiguration, scratch: URL
    ) -> AnswerDifference? {
        find(
            workload: check.workload, scale: check.scale, digests: check.digests, steps: check.steps, stores: stores,
            configuration: configuration, scratch: scratch)
    }

    /// The difference between the stores of `digests` (each store's distinct digests in the run) at `scale`, each
    /// doing `steps` steps (nil: all), asked again in a scratch directory `scratch` (removed after).
    package static func find(
        workload name: String, scale: Scale, digests: [String: [Digest]], steps: Int?, stores: [StoreKind],
        configuration: RunConfiguration, scratch: URL
    ) -> AnswerDifference? {
        guard let workload = WorkloadCatalog.workload(named: name, shape: configuration.shape) else { return nil }
        // Stores by their first digest; the reference is the most common digest's first store by name.
        let byDigest = Dictionary(grouping: digests.keys.sorted()) { digests[$0]?.first }
        let ranked = byDigest.values.sorted { $0.count != $1.count ? $0.count > $1.count : $0[0] < $1[0] }
        guard let reference = ranked.first?.first else { return nil }
        let wavering = digests.filter { $0.value.count > 1 }.keys
        let asked = ([reference] + ranked.dropFirst().map { $0[0] } + wavering.filter { $0 != reference })
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard asked.count > 1 else { return nil }

        var traces: [String: AnswerTrace] = [:]
        var difference = AnswerDifference(
            workload: name, scale: scale, reference: reference, position: nil, compared: 0,
            answers: [:])
        let box = TimeBox(seconds: nil, stepLimit: steps)
        for name in asked {
            guard let kind = stores.first(where: { $0.name == name }) else { continue }
            do {
                traces[name] = try trace(
                    workload, on: kind, at: scratch.appendingPathComponent(name),
                    parameters: configuration.parameters(scale: scale, box: box))
            } catch {
                difference.answers[name] = "the re-ask failed: \(error)"
            }
        }
        try? FileSystem.remove(scratch)
        guard let expected = traces[reference]?.answers else { return difference }
        difference.compared = expected.count
        var first: Int?
        for (name, trace) in traces where name != reference {
            let answers = trace.answers
            let common = min(answers.count, expected.count)
            let index =
                (0..<common).first { expected[$0] != answers[$0] }
                ?? (answers.count == expected.count ? nil : common)
            if let index { first = min(first ?? index, index) }
        }
        if traces.values.contains(where: \.wasCut) {
            difference.note = "answers past the first \(AnswerTrace.defaultLimit) not compared"
        }
        guard let first else { return difference }
        difference.position = first + 1
        for (name, trace) in traces {
            let answers = trace.answers
            difference.answers[name] = first < answers.count ? answers[first] : "no answer"
        }
        return difference
    }

    /// The answers `workload` gets from a store of `kind` in `directory` (removed after), its fixture loaded first.
    private static func trace(
        _ workload: any Workload, on kind: StoreKind, at directory: URL, parameters: CellParameters
    ) throws -> AnswerTrace {
        defer { try? FileSystem.remove(directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var context = WorkloadContext(parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter())
        context.checksAnswers = false
        context.executable = try? Executable.path()
        if workload.fixture != nil {
            try CellExecution.loadFixture(of: workload, into: kind, at: directory, context: context)
        }
        let trace = AnswerTrace()
        _ = try AnswerTrace.recording(into: trace) {
            try CellExecution.measure(workload, on: kind, at: directory, context: context)
        }
        return trace
    }
}

extension RunResults {
    /// The first differing answer found for `check`'s group, if it was asked again.
    package func difference(in check: DigestCheck) -> AnswerDifference? {
        answerDifferences?.first { $0.workload == check.workload && $0.scale == check.scale }
    }
}
