extension Character {
    /// An ASCII letter, digit or hyphen: what a DNS label and an Apple bundle ID are made of.
    var isLDH: Bool { isASCII && (isLetter || isNumber || self == "-") }
}
