#include "key_shims.h"

#include <pthread.h>
#include <string.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/buffer.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

EVP_PKEY *lkk_generate_ec_key(const char *group_name) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", group_name);
}

EVP_PKEY *lkk_generate_ed25519_key(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
}

EVP_PKEY *lkk_generate_rsa_key(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}

size_t lkk_private_key_pem(EVP_PKEY *key, char *buffer, size_t buffer_length) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return 0;
    size_t written = 0;
    if (PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long length = BIO_get_mem_data(bio, &data);
        if (length > 0 && (size_t)length <= buffer_length) {
            memcpy(buffer, data, (size_t)length);
            written = (size_t)length;
        }
    }
    // The memory BIO held the private key: wipe it before it is freed.
    BUF_MEM *memory = NULL;
    if (BIO_get_mem_ptr(bio, &memory) == 1 && memory != NULL && memory->data != NULL) {
        OPENSSL_cleanse(memory->data, memory->length);
    }
    BIO_free(bio);
    return written;
}

EVP_PKEY *lkk_private_key_from_pem(const char *pem, size_t pem_length) {
    if (pem_length > INT32_MAX) return NULL;
    BIO *bio = BIO_new_mem_buf(pem, (int)pem_length);
    if (bio == NULL) return NULL;
    // An empty passphrase: an encrypted PEM fails instead of prompting on the terminal.
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, "");
    BIO_free(bio);
    return key;
}

size_t lkk_public_key_der(EVP_PKEY *key, uint8_t *buffer, size_t buffer_length) {
    int length = i2d_PUBKEY(key, NULL);
    if (length <= 0 || (size_t)length > buffer_length) return 0;
    uint8_t *cursor = buffer;
    return i2d_PUBKEY(key, &cursor) == length ? (size_t)length : 0;
}

static int export_number(EVP_PKEY *key, const char *name, uint8_t *buffer, size_t capacity, size_t *length) {
    BIGNUM *number = NULL;
    if (EVP_PKEY_get_bn_param(key, name, &number) != 1) return 0;
    int size = BN_num_bytes(number);
    int ok = size > 0 && (size_t)size <= capacity && BN_bn2bin(number, buffer) == size;
    if (ok) *length = (size_t)size;
    BN_free(number);
    return ok;
}

int lkk_rsa_public_numbers(EVP_PKEY *key, uint8_t *modulus, size_t modulus_capacity, size_t *modulus_length,
                           uint8_t *exponent, size_t exponent_capacity, size_t *exponent_length) {
    if (EVP_PKEY_is_a(key, "RSA") != 1) return 0;
    return export_number(key, OSSL_PKEY_PARAM_RSA_N, modulus, modulus_capacity, modulus_length) &&
           export_number(key, OSSL_PKEY_PARAM_RSA_E, exponent, exponent_capacity, exponent_length);
}

// SHA-256, SHA-384 and SHA-512 fetched once, so that a signature skips OpenSSL's algorithm lookup
// by name (a server signs a token with every sign-in).
static EVP_MD *fetched_sha256, *fetched_sha384, *fetched_sha512;
static pthread_once_t fetched_digests_once = PTHREAD_ONCE_INIT;

static void fetch_digests(void) {
    fetched_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    fetched_sha384 = EVP_MD_fetch(NULL, "SHA384", NULL);
    fetched_sha512 = EVP_MD_fetch(NULL, "SHA512", NULL);
    ERR_clear_error();
}

// The fetched digest named `name`, or NULL for any other name (then looked up per call).
static const EVP_MD *fetched_digest(const char *name) {
    if (name == NULL) return NULL;
    pthread_once(&fetched_digests_once, fetch_digests);
    if (strcmp(name, "SHA256") == 0) return fetched_sha256;
    if (strcmp(name, "SHA384") == 0) return fetched_sha384;
    if (strcmp(name, "SHA512") == 0) return fetched_sha512;
    return NULL;
}

size_t lkk_sign(EVP_PKEY *key, const char *digest_name, int pss, const uint8_t *message, size_t message_length,
                uint8_t *signature, size_t signature_capacity) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    EVP_PKEY_CTX *key_context = NULL;
    size_t length = 0;
    const EVP_MD *digest = fetched_digest(digest_name);
    int initialised = digest != NULL
        ? EVP_DigestSignInit(context, &key_context, digest, NULL, key)
        : EVP_DigestSignInit_ex(context, &key_context, digest_name, NULL, NULL, key, NULL);
    // The first EVP_DigestSign call asks for the largest size, the second signs (ECDSA DER
    // signatures can come out shorter).
    int signed_ok = initialised == 1 &&
                    (!pss || (EVP_PKEY_CTX_set_rsa_padding(key_context, RSA_PKCS1_PSS_PADDING) == 1 &&
                              EVP_PKEY_CTX_set_rsa_pss_saltlen(key_context, RSA_PSS_SALTLEN_DIGEST) == 1)) &&
                    EVP_DigestSign(context, NULL, &length, message, message_length) == 1 &&
                    length <= signature_capacity &&
                    EVP_DigestSign(context, signature, &length, message, message_length) == 1;
    EVP_MD_CTX_free(context);
    return signed_ok ? length : 0;
}

void lkk_free_key(EVP_PKEY *key) {
    EVP_PKEY_free(key);
}

int lkk_add_named_extension(X509 *certificate, X509 *issuer, int nid, const char *value) {
    X509V3_CTX context;
    X509V3_set_ctx_nodb(&context);
    X509V3_set_ctx(&context, issuer, certificate, NULL, NULL, 0);
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, &context, nid, value);
    if (extension == NULL) return 0;
    int added = X509_add_ext(certificate, extension, -1);
    X509_EXTENSION_free(extension);
    return added == 1;
}

static int add_raw_extension(X509 *certificate, const char *oid_text, const uint8_t *value, size_t value_length) {
    ASN1_OBJECT *oid = OBJ_txt2obj(oid_text, 1);
    ASN1_OCTET_STRING *data = ASN1_OCTET_STRING_new();
    X509_EXTENSION *extension = NULL;
    int ok = oid != NULL && data != NULL && value_length <= INT32_MAX &&
             ASN1_OCTET_STRING_set(data, value, (int)value_length) == 1 &&
             (extension = X509_EXTENSION_create_by_OBJ(NULL, oid, 0, data)) != NULL &&
             X509_add_ext(certificate, extension, -1) == 1;
    X509_EXTENSION_free(extension);
    ASN1_OCTET_STRING_free(data);
    ASN1_OBJECT_free(oid);
    return ok;
}

size_t lkk_issue_certificate(EVP_PKEY *subject_key, const char *common_name, const uint8_t *issuer_der,
                             size_t issuer_der_length, EVP_PKEY *issuer_key, int is_ca, long serial,
                             int64_t not_before, int64_t not_after, const char *extension_oid,
                             const uint8_t *extension_value, size_t extension_value_length,
                             uint8_t *buffer, size_t buffer_length) {
    X509 *issuer = NULL;
    if (issuer_der != NULL) {
        const uint8_t *cursor = issuer_der;
        issuer = d2i_X509(NULL, &cursor, (long)issuer_der_length);
        if (issuer == NULL) return 0;
    }
    X509 *certificate = X509_new();
    size_t length = 0;
    time_t from = (time_t)not_before, until = (time_t)not_after;
    int ok = certificate != NULL && X509_set_version(certificate, 2) == 1 &&
             ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial) == 1 &&
             X509_time_adj_ex(X509_getm_notBefore(certificate), 0, 0, &from) != NULL &&
             X509_time_adj_ex(X509_getm_notAfter(certificate), 0, 0, &until) != NULL &&
             X509_set_pubkey(certificate, subject_key) == 1;
    if (ok) {
        X509_NAME *name = X509_get_subject_name(certificate);
        X509 *issuing = issuer != NULL ? issuer : certificate;
        ok = X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Latchkey Software Authenticator", -1, -1, 0) == 1 &&
             X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) == 1 &&
             X509_set_issuer_name(certificate, X509_get_subject_name(issuing)) == 1 &&
             lkk_add_named_extension(certificate, issuing, NID_basic_constraints, is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE") &&
             lkk_add_named_extension(certificate, issuing, NID_key_usage, is_ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature") &&
             lkk_add_named_extension(certificate, issuing, NID_subject_key_identifier, "hash") &&
             (issuer == NULL || lkk_add_named_extension(certificate, issuing, NID_authority_key_identifier, "keyid:always")) &&
             (extension_oid == NULL || add_raw_extension(certificate, extension_oid, extension_value, extension_value_length)) &&
             X509_sign(certificate, issuer_key, EVP_sha256()) > 0;
    }
    if (ok) {
        int encoded = i2d_X509(certificate, NULL);
        if (encoded > 0 && (size_t)encoded <= buffer_length) {
            uint8_t *cursor = buffer;
            length = i2d_X509(certificate, &cursor) == encoded ? (size_t)encoded : 0;
        }
    }
    ERR_clear_error();
    X509_free(certificate);
    X509_free(issuer);
    return length;
}
