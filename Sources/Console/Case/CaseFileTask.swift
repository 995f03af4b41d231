import DeskCore
import DeskStore
import Foundation

/// `x` on the customer summary: the case file of the customer on screen, copied to the clipboard
/// (OSC 52) and saved in the state folder's `cases/`, with the path said.
enum CaseFileTask {
    struct Written: Sendable {
        var markdown: String
        var path: String?
        var problem: String?
    }

    static func start(_ state: inout ConsoleState) -> [ConsoleEffect] {
        guard let customer = state.customer else { return [] }
        let environment = state.environment
        let now = state.now
        let request = ConsoleReducer.start(&state, "Case file for \(customer.query)", owner: .customer)
        return [.task(PaneTask(request: request, name: "case file \(customer.query)") { services, _ in
            // A ledger that cannot be read leaves the writes out of the file, and says so.
            var ledgerProblem: String?
            var recorded: [WriteRecord] = []
            if let ledger = services.writes?.ledger {
                do { recorded = try await ledger.writes() } catch { ledgerProblem = "\(error)" }
            }
            let writes = CaseFile.writes(for: customer, in: recorded, environment: environment, bundleId: services.writes?.bundleId)
            var notes: [CaseNote] = []
            if let store = services.writes?.notes {
                do { notes = try await store.notes(concerning: customer.noteSubjects) } catch { ledgerProblem = ledgerProblem ?? "\(error)" }
            }
            let file = CaseFile(customer: customer, environment: environment, writes: writes, notes: notes, generatedAt: now)
            let markdown = file.markdown()
            guard let stateFolder = services.writes?.stateFolder else {
                return CustomerAnswer.caseFile(Written(markdown: markdown, path: nil, problem: ledgerProblem ?? "no state folder to save it in"))
            }
            let folder = stateFolder + "/cases"
            let path = folder + "/\(fileName(customer.query, now)).md"
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try Data(markdown.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                return CustomerAnswer.caseFile(Written(markdown: markdown, path: path, problem: ledgerProblem.map { "its writes are missing: \($0)" }))
            } catch {
                return CustomerAnswer.caseFile(Written(markdown: markdown, path: nil, problem: "\(error.localizedDescription)"))
            }
        })]
    }

    /// "MK5TTTVWJH-20261123-195501": the ID as typed (only letters and digits reach here) and the time.
    static func fileName(_ query: String, _ date: Date) -> String {
        let parts = DisplayFormat.utcParts(date)
        let stamp = parts.map { String(format: "%04d%02d%02d-%02d%02d%02d", $0.year, $0.month, $0.day, $0.hour, $0.minute, $0.second) } ?? "case"
        return query.filter { $0.isLetter || $0.isNumber } + "-" + stamp
    }

    static func written(_ state: inout ConsoleState, _ written: Written) -> [ConsoleEffect] {
        if let path = written.path {
            ConsoleReducer.toast(&state, "Case file copied to the clipboard and saved to \(path).", lasting: 60)
        } else {
            ConsoleReducer.toast(&state, "Case file copied to the clipboard; not saved: \(written.problem ?? "unknown reason").", isError: true)
        }
        return [.copy(written.markdown)]
    }
}
