#ifndef LATCHKEY_KEY_SHIMS_H
#define LATCHKEY_KEY_SHIMS_H

// The OpenSSL calls of `latchkey authenticator`, the token signer and the tests that Swift cannot make directly
// (variadic key generation, BIO plumbing, BIGNUM sizes): key pairs, private key PEM, public key parts, signing.
// Every EVP_PKEY returned here is the caller's to free with lkk_free_key.

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

/// A fresh EC key pair on the named group ("P-256", "P-384"), or NULL.
EVP_PKEY *lkk_generate_ec_key(const char *group_name);

/// A fresh Ed25519 key pair, or NULL.
EVP_PKEY *lkk_generate_ed25519_key(void);

/// A fresh RSA key pair of `bits` bits with exponent 65537, or NULL.
EVP_PKEY *lkk_generate_rsa_key(unsigned int bits);

/// The unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY") of `key` into `buffer`; returns its length,
/// or 0 when it fails or does not fit.
size_t lkk_private_key_pem(EVP_PKEY *key, char *buffer, size_t buffer_length);

/// The private key in an unencrypted PEM text (PKCS#8 or the traditional forms), or NULL.
EVP_PKEY *lkk_private_key_from_pem(const char *pem, size_t pem_length);

/// The DER SubjectPublicKeyInfo of `key` into `buffer`; returns its length, or 0.
size_t lkk_public_key_der(EVP_PKEY *key, uint8_t *buffer, size_t buffer_length);

/// The big-endian modulus and public exponent of an RSA key; returns 1, or 0 when `key` is not an
/// RSA key or a buffer is too small.
int lkk_rsa_public_numbers(EVP_PKEY *key, uint8_t *modulus, size_t modulus_capacity, size_t *modulus_length,
                           uint8_t *exponent, size_t exponent_capacity, size_t *exponent_length);

/// Signs `message` with `key`: hashed with `digest_name` ("SHA256", ...) for ECDSA (DER signature,
/// as WebAuthn carries it) and RSA (PKCS#1 v1.5, or PSS with a salt as long as the digest when
/// `pss` is set); `digest_name` NULL for Ed25519 (PureEdDSA). Returns the signature length, or 0.
size_t lkk_sign(EVP_PKEY *key, const char *digest_name, int pss, const uint8_t *message, size_t message_length,
                uint8_t *signature, size_t signature_capacity);

/// A DER X.509 v3 certificate for `subject_key`, signed with `issuer_key` (ECDSA or RSA with
/// SHA-256), into `buffer`: subject O=Latchkey Software Authenticator, CN=`common_name`; issued by
/// the subject of the DER certificate `issuer_der`, or self-signed when it is NULL. A CA
/// (`is_ca`) gets CA:TRUE and keyCertSign. When `extension_oid` is not NULL, one more extension
/// of that dotted OID holds the DER `extension_value`. Returns the length, or 0 on failure.
size_t lkk_issue_certificate(EVP_PKEY *subject_key, const char *common_name, const uint8_t *issuer_der,
                             size_t issuer_der_length, EVP_PKEY *issuer_key, int is_ca, long serial,
                             int64_t not_before, int64_t not_after, const char *extension_oid,
                             const uint8_t *extension_value, size_t extension_value_length,
                             uint8_t *buffer, size_t buffer_length);

/// Adds the X.509 v3 extension `nid` written as OpenSSL's configuration text (`"critical,CA:TRUE"`),
/// in the context of `issuer` (the certificate itself when self-signed). Returns 1, or 0 on failure.
int lkk_add_named_extension(X509 *certificate, X509 *issuer, int nid, const char *value);

void lkk_free_key(EVP_PKEY *key);

#endif
