/// `LATCHKEY_*` variables that no key reads. swift-configuration ignores them, so a misspelt variable (`LATCHKEY_RPID`)
/// would silently leave its key at the default: each is a warning, with the known variable it is closest to.
extension ConfigurationLoader {
    /// The variable that turns the operations features off for a benchmark run (`1`); read by the executable only.
    public static let benchmarkVariable = "LATCHKEY_BENCHMARK_WITHOUT_OPERATIONS"

    /// Every variable Latchkey reads: one per key, the configuration file and the home.
    static var knownVariables: [String] {
        LatchkeyConfiguration.keys.map(\.environmentName) + [fileVariable, LatchkeyHome.variable]
    }

    /// Variables the project's scripts, and the shell session of docs/USING.md (`LATCHKEY_URL`, the server's address for
    /// curl), leave set in a shell that then starts the server: no warning, and no key.
    static let toolVariables = [
        "LATCHKEY_POSTGRES_DIR", "LATCHKEY_TEST_POSTGRES_URL", "LATCHKEY_TEST_SKIP_POSTGRES", "LATCHKEY_URL", benchmarkVariable,
    ]

    /// One warning per unknown `LATCHKEY_*` variable, sorted by name.
    static func unknownVariableWarnings(in environment: [String: String]) -> [String] {
        let known = Set(knownVariables + toolVariables)
        return environment.keys.filter { $0.hasPrefix("LATCHKEY_") && !known.contains($0) }.sorted().map { name in
            "\(name) is not a Latchkey setting and is ignored" + (closestKnownVariable(to: name).map { "; did you mean \($0)?" } ?? "")
        }
    }

    /// The key a misspelt key most likely stands for (`rpId` → `rpID`, `prot` → `port`), by the rules of the variables:
    /// for file keys and command-line options.
    public static func closestKey(to name: String) -> String? {
        closestKnownVariable(to: LatchkeyConfiguration.environmentName(of: name)).flatMap { variable in
            LatchkeyConfiguration.keys.first { $0.environmentName == variable }?.name
        }
    }

    /// The known variable `name` most likely stands for, ignoring case and underscores: the nearest of those a few edits
    /// away (at most a third of its length, and 3: `LATCHKEY_RPID` → `LATCHKEY_RP_ID`) or that it shortens or lengthens
    /// (`LATCHKEY_PUBLIC_DIR` → `LATCHKEY_PUBLIC_DIRECTORY`); nil when there is none.
    static func closestKnownVariable(to name: String) -> String? {
        func letters(_ variable: String) -> [Character] {
            Array(variable.dropFirst("LATCHKEY_".count).uppercased().filter { $0 != "_" })
        }
        let typed = letters(name)
        let nearEnough = min(3, max(1, typed.count / 3))
        return knownVariables
            .map { (name: $0, letters: letters($0), distance: editDistance(typed, letters($0))) }
            .filter { known in
                let (shorter, longer) = typed.count < known.letters.count ? (typed, known.letters) : (known.letters, typed)
                return known.distance <= nearEnough || (shorter.count >= 4 && longer.starts(with: shorter))
            }
            .min { $0.distance < $1.distance }?.name
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of neighbours
    /// (`PROT` → `PORT` is one edit).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var distances = (0...a.count).map { i in (0...b.count).map { j in i == 0 ? j : j == 0 ? i : 0 } }
        for i in a.indices {
            for j in b.indices {
                let substitution = a[i] == b[j] ? 0 : 1
                distances[i + 1][j + 1] = min(distances[i][j + 1] + 1, distances[i + 1][j] + 1, distances[i][j] + substitution)
                if i > 0, j > 0, a[i] == b[j - 1], a[i - 1] == b[j] {
                    distances[i + 1][j + 1] = min(distances[i + 1][j + 1], distances[i - 1][j - 1] + 1)
                }
            }
        }
        return distances[a.count][b.count]
    }
}
