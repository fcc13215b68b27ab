import Foundation

/// The calls the store contract declares, read from its protocols' source (`Sources/LatchkeyStore`), each named
/// as `#function` names it (`user(named:)`): what the planner tests' workload must make, so a call added to the
/// contract fails the test until the workload makes it.
enum StoreRequirements {
    static var sources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/LatchkeyStore")
    }

    /// Every `async` requirement of every `public protocol` in the module's files but those of `excluded` protocols
    /// (a backend that does not conform to one).
    static func asyncCalls(excluding excluded: Set<String> = []) throws -> Set<String> {
        var calls: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(at: sources, includingPropertiesForKeys: nil)
        where file.pathExtension == "swift" {
            for (name, body) in protocolBodies(in: try String(contentsOf: file, encoding: .utf8)) where !excluded.contains(name) {
                calls.formUnion(asyncFunctions(in: body))
            }
        }
        return calls
    }

    /// The name and the text between the braces of each `public protocol` declaration.
    static func protocolBodies(in source: String) -> [(name: String, body: Substring)] {
        var bodies: [(String, Substring)] = []
        var rest = source[...]
        while let start = rest.range(of: "public protocol ") {
            let name = String(rest[start.upperBound...].prefix { $0.isLetter || $0.isNumber })
            guard let open = rest[start.upperBound...].firstIndex(of: "{") else { break }
            var depth = 0, index = open
            while index < rest.endIndex {
                if rest[index] == "{" { depth += 1 }
                if rest[index] == "}" { depth -= 1; if depth == 0 { break } }
                index = rest.index(after: index)
            }
            bodies.append((name, rest[rest.index(after: open)..<index]))
            rest = rest[index...]
        }
        return bodies
    }

    /// `name(label:label:)` of each `func` in `body` whose declaration says `async`.
    static func asyncFunctions(in body: Substring) -> [String] {
        var functions: [String] = []
        var rest = body
        while let found = rest.range(of: "func ") {
            let afterName = rest[found.upperBound...]
            guard let open = afterName.firstIndex(of: "(") else { break }
            let name = afterName[..<open].trimmingCharacters(in: .whitespaces)
            var depth = 0, index = open, parameters: [Substring] = [], start = afterName.index(after: open)
            while index < afterName.endIndex {
                switch afterName[index] {
                case "(", "[", "<": depth += 1
                case ")", "]", ">" where afterName[afterName.index(before: index)] != "-":
                    depth -= 1
                    if depth == 0 { parameters.append(afterName[start..<index]) }
                case "," where depth == 1:
                    parameters.append(afterName[start..<index])
                    start = afterName.index(after: index)
                default: break
                }
                if depth == 0 { break }
                index = afterName.index(after: index)
            }
            // The effects end the declaration: everything up to the next member, at the protocol's indentation.
            let tail = afterName[index...]
            let declarationEnd = tail.range(of: #"\n    [^ ]"#, options: .regularExpression)?.lowerBound ?? tail.endIndex
            let effects = tail[..<declarationEnd]
            if effects.contains("async") {
                let labels = parameters.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
                    .map { ($0.split(separator: " ").first.map(String.init) ?? "").replacingOccurrences(of: ":", with: "") + ":" }
                functions.append("\(name)(\(labels.joined()))")
            }
            rest = tail
        }
        return functions
    }
}
