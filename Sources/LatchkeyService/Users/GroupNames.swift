/// What a group's name may be: 1 to 64 letters, digits, `.`, `_`, `-`, `:` and `/` (`admins`, `team:ops`), so that it
/// reads the same in a claim, a log line and an Apache `Require claim` line; a user is in at most 50.
package enum GroupNames {
    package static let maximumPerUser = 50

    /// The problem with `names` as a list of groups, if any.
    package static func problem(_ names: [String], member: String) -> String? {
        guard names.count <= maximumPerUser else { return "\(member) lists at most \(maximumPerUser) groups" }
        for name in names {
            let allowed = name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-:/".unicodeScalars.contains(scalar))
            }
            guard (1...64).contains(name.utf8.count), allowed else {
                return "\(member): \(name.prefix(80).debugDescription) is not a group name (1 to 64 letters, digits, '.', '_', '-', ':' and '/')"
            }
        }
        return nil
    }
}
