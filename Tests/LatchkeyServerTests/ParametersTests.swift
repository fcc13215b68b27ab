import Testing

@testable import LatchkeyServer

/// Queries and forms: `&`-separated pairs split at their first `=`, empty pairs dropped, values percent-decoded (a
/// value that does not decode kept as sent), a form's `+` a space; every pair kept in order, repeats included.
@Suite struct ParametersTests {
    static func pairs(_ parameters: Parameters) -> [String] { parameters.all.map { "\($0.name)=\($0.value)" } }

    @Test func queriesSplitAtAmpersandsAndTheFirstEqualsSign() {
        #expect(Self.pairs(.query("")) == [])
        #expect(Self.pairs(.query("a=1&&b=2&")) == ["a=1", "b=2"])
        #expect(Self.pairs(.query("flag&x=a=b")) == ["flag=", "x=a=b"])
        #expect(Self.pairs(.query("a=1&a=2")) == ["a=1", "a=2"])
        #expect(Parameters.query("a=1&a=2").get("a") == "1")
    }

    @Test func valuesArePercentDecodedOrKeptAsSent() {
        #expect(Self.pairs(.query("u=https%3A%2F%2Fa.example%2Fcb&bad=%zz&plus=a+b")) == ["u=https://a.example/cb", "bad=%zz", "plus=a+b"])
        #expect(Self.pairs(.query("n=%C3%A9t%C3%A9&raw=été")) == ["n=été", "raw=été"])
    }

    @Test func aFormReadsPlusAsASpaceButNotAnEscapedPlus() {
        #expect(Self.pairs(.form("scope=openid+profile&secret=a%2Bb")) == ["scope=openid profile", "secret=a+b"])
        #expect(Self.pairs(.form("grant_type=refresh_token")) == ["grant_type=refresh_token"])
    }
}
