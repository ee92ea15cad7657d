"""Secrets redaction, table-driven: every rule has positives (exact output: the name stays, the
value goes) and look-alikes that must stay untouched.

Test tokens are assembled by concatenation so that no full token appears in this file.
"""

from __future__ import annotations

import pytest

from solograph.text.secret_rules import RULES, Rule
from solograph.text.secrets import (
    REDACTED,
    RULES_VERSION,
    _rules,
    redact,
)
from solograph.text.secrets import _secrets as find_secrets

R = REDACTED
MIX = "a1B2" * 9  # 36 characters with upper, lower and digits

ANTHROPIC = "sk-ant-" + "api03-" + "Ab3De" * 18 + "-xYz9AA"
ANTHROPIC_OAUTH = "sk-ant-" + "oat01-" + "Qw9_eR" * 15
OPENAI_PROJ = "sk-" + "proj-" + MIX + "_" + MIX + "-" + MIX
OPENAI_LEGACY = "sk-" + "T3b" * 16
GHP = "ghp_" + MIX
GHS = "ghs_" + MIX[::-1]
GH_PAT = "github_pat_" + "11ABCDEFG0" + "x9Y8z7W6v5" * 6
GLPAT = "glpat-" + "a1B2c3D4e5F6g7H8i9J0"
NPM = "npm_" + "Ab1" * 12
PYPI = "pypi-" + "AgEIcHlwaS5vcmc" + "CJ" + "a1B2" * 15
AKIA = "AKIA" + "Z7Q2X9R4T6Y8U3W5"
ASIA = "ASIA" + "Q4W6E8R2T3Y5U7I9"
AWS_SECRET = "Ab3/" * 10
GOOGLE = "AIza" + "Sy" + "D1e2F3g4H5" * 3 + "abc"
XOXB = "xoxb-" + "2048123" + "4567-" + "1234567890123-" + "AbCdEfGh" * 3
XOXP = "xoxp-" + "1111111" + "1111-2222222222-3333333333-" + "a1b2c3d4" * 4
WEBHOOK_PATH = "T0" + "1ABCDEF2/B0" + "2GHIJKL3/" + "aB3dE5" * 4
STRIPE_LIVE = "sk_" + "live_" + "51Hq" + "q8Zr" * 6
STRIPE_RK = "rk_" + "test_" + "51Hq" + "Zr8q" * 6
STRIPE_WH = "whsec_" + "Xy7" * 11
HF = "hf_" + "Qx7" * 11 + "Z"
TELEGRAM = "123456789" + ":AA" + "Hdq7" * 8 + "x"
XAPP = "xapp-" + "1-A0" + "1B2C3D4E5-" + "1234567890123-" + "0a1b2c3d" * 8
YA29 = "ya29." + "a0AfH6SMB" + "x3kQ9zR7vT2mLpW8nY4cF6hJ1dS5gK0aE3bN7uI9oP2qX_lZ-vM8wC"
GOCSPX = "GOCSPX-" + "1a2B3c4D5e6F7g8H9i0J1k2L3m4N"
GLRT = "glrt-" + "t1_a1B2c3D4e5F6g7H8i9J0"
SHPAT = "shpat_" + "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d"
HVS = "hvs." + "CAESI" + "a1B2c3D4e5" * 10
DOP = "dop_" + "v1_" + "0a1b2c3d4e5f6a7b" * 4
SG = "SG." + "aB3dE5fG7hI9jK1lM3nO5p" + "." + "qR7sT9uV1wX3yZ5aB7cD9eF1gH3iJ5kL7mN9oP1qR3s"
TWILIO = "SK" + "0123456789abcdef" * 2
DISCORD = "MTA4" + "NzY1NDMyMTA5ODc2NTQz" + "Mg" + "." + "GhIjKl" + "." + "mNoPqRsTuVwX" * 3
AZURE_AD = "aB3" + "8Q~" + "Zx9_Yw8.Vu7~Ts6-Rq5Po4Nm3Lk2Ji1Hg"
AZURE_KEY = "Zm9vYmFy" * 10 + "cXV4Lw=="
SAS = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6" + "%3D"
DOCKER_AUTH = "dXNlcjpTM2NyM3RQYXNzd29yZA=="  # user:S3cr3tPassword
KUBE_KEY = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVB"
JWT = ("eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0"
       + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")

HEX32 = "0f1e2d3c4b5a6978" + "a1b2c3d4e5f60718"
HEX40 = HEX32 + "9a8b7c6d"
DISCORD_HOOK = "1187654321098765432/" + "aB3-dE5_fG7h" * 5 + "iJ9kL1mN"
TEAMS_HOOK = ("https://acme.webhook.office.com/webhookb2/" + "1a2b3c4d-0000-4a4a-8b8b-"
              + "0a1b2c3d4e5f@" + "9f8e7d6c-1111-4b4b-9c9c-0f1e2d3c4b5a/IncomingWebhook/"
              + HEX32 + "/5e6f7a8b-2222-4c4c-8d8d-1a2b3c4d5e6f")
TFC = ("Nv3FgaWUQw749T" + ".atlasv1." + "Ih4MmDJIF0sqGy0ht0IJ9NI_B-V8ERwx5thPrBO-9Qpq"
       + "rGClgwoCzN2PacNCkCJRIWc")
PPK_PRIVATE = "AAAAIB" + "q1W2e3R4t5Y6u7I8o9P0" * 2
PPK = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me@laptop\n"
       "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI" + "Zx9Yw8Vu7Ts6" * 3 + "\nAb12Cd34\n"
       "Private-Lines: 1\n" + PPK_PRIVATE + "\nPrivate-MAC: " + HEX32 * 2)
JIRA = "B1pGJnv7vGYz" + "95LEgiP0CHJU"


def pem(label: str, lines: int = 4, newline: str = "\n") -> str:
    body = newline.join("MIIEowIBAAKCAQEA" + "q1W2e3R4t5Y6u7I8" * 3 for _ in range(lines))
    return (f"-----BEGIN {label}-----{newline}{body}{newline}"
            f"-----END {label}-----")


RSA = pem("RSA PRIVATE KEY")

# (rule, text, expected)
POSITIVES: list[tuple[str, str, str]] = [
    ("private_key", "key.pem:\n" + RSA + "\ndone", f"key.pem:\n{R}\ndone"),
    ("private_key", pem("OPENSSH PRIVATE KEY"), R),
    ("private_key", "x " + pem("EC PRIVATE KEY") + " y", f"x {R} y"),
    ("private_key", pem("PGP PRIVATE KEY BLOCK", 6), R),
    ("private_key", pem("PRIVATE KEY"), R),
    # Cut after its armor headers: what follows them still goes.
    ("private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
     "lQOYBF7b3kQBCADxZq9L3Mk2Yb7Xc1Vn4Wq8Rt6Yu0Io3Pa5Sd7Fg9Hj2Kl4Zx6Cv8Bn1Mq3We5Rt7Yu9", R),
    # A raw transcript line: newlines are JSON escapes.
    ("private_key", '{"content": "' + pem("RSA PRIVATE KEY", newline="\\n") + '"}',
     '{"content": "' + R + '"}'),
    # Cut off by `head`: what is there still goes.
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + "q1W2" * 12
     + "\nZm9vYmFyYmF6cXV4" * 2, R),
    ("anthropic_api_key", "ANTHROPIC_API_KEY=" + ANTHROPIC, f"ANTHROPIC_API_KEY={R}"),
    ("anthropic_api_key", f"oauth token {ANTHROPIC_OAUTH} expired", f"oauth token {R} expired"),
    ("openai_api_key", "OPENAI_API_KEY=" + OPENAI_PROJ, f"OPENAI_API_KEY={R}"),
    ("openai_api_key", f'client = OpenAI(api_key="{OPENAI_LEGACY}")',
     f'client = OpenAI(api_key="{R}")'),
    ("openai_api_key", f"use {OPENAI_LEGACY}.", f"use {R}."),
    ("github_token", "export GITHUB_TOKEN=" + GHP, f"export GITHUB_TOKEN={R}"),
    ("github_token", f"remote: {GHS}", f"remote: {R}"),
    ("github_token", f"gh auth login --with-token <<< {GH_PAT}",
     f"gh auth login --with-token <<< {R}"),
    ("provider_token", f"git push https://oauth2:{GLPAT}@gitlab.com/g/p.git",
     f"git push https://oauth2:{R}@gitlab.com/g/p.git"),
    ("provider_token", f"PRIVATE-TOKEN: {GLPAT}", f"PRIVATE-TOKEN: {R}"),
    ("provider_token", f"gitlab-runner register --token {GLRT}",
     f"gitlab-runner register --token {R}"),
    ("provider_token", f"X-Shopify-Access-Token: {SHPAT}", f"X-Shopify-Access-Token: {R}"),
    ("provider_token", f"vault login {HVS}", f"vault login {R}"),
    ("provider_token", f"doctl auth init -t {DOP}", f"doctl auth init -t {R}"),
    ("provider_token", f"sg = SendGridAPIClient('{SG}')", f"sg = SendGridAPIClient('{R}')"),
    ("twilio_api_key", f"twilio api key {TWILIO} and its secret",
     f"twilio api key {R} and its secret"),
    ("twilio_api_key", f'api_key_sid = "{TWILIO}"', f'api_key_sid = "{R}"'),
    ("google_api_key", f"access token {YA29}", f"access token {R}"),
    ("google_api_key", f"client secret is {GOCSPX}.", f"client secret is {R}."),
    ("slack_token", f"socket mode app token {XAPP}", f"socket mode app token {R}"),
    ("slack_token", f"SLACK_APP_TOKEN={XAPP}", f"SLACK_APP_TOKEN={R}"),
    ("discord_bot_token", f'client.run("{DISCORD}")', f'client.run("{R}")'),
    ("discord_bot_token", f"my bot token is {DISCORD}, reset it", f"my bot token is {R}, reset it"),
    ("azure_client_secret", f"the client secret value is {AZURE_AD}",
     f"the client secret value is {R}"),
    ("azure_client_secret", f'"password": "{AZURE_AD}"', f'"password": "{R}"'),
    ("sas_signature", f"https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig={SAS}",
     f"https://a.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig={R}"),
    ("sas_signature", f"SharedAccessSignature sr=x&sig={SAS}&se=1700000000",
     f"SharedAccessSignature sr=x&sig={R}&se=1700000000"),
    ("pgpass_password", "db.acme.io:5432:app:appuser:Sup3rS3cret!",
     f"db.acme.io:5432:app:appuser:{R}"),
    ("pgpass_password", "echo '*:*:*:postgres:hunter2pass' > ~/.pgpass",
     f"echo '*:*:*:postgres:{R}' > ~/.pgpass"),
    ("netrc_password", "machine git.acme.io login deploy password VG55i6EJAcCIrq9f",
     f"machine git.acme.io login deploy password {R}"),
    ("netrc_password", "machine api.heroku.com\n  login me@acme.io\n  password s3cr3t-pw",
     f"machine api.heroku.com\n  login me@acme.io\n  password {R}"),
    ("netrc_password", "default login anonymous password guest123",
     f"default login anonymous password {R}"),
    ("npmrc_auth", "//registry.npmjs.org/:_authToken=5f4dcc3b-5aa7-4c2b-9e1d-8a4f6b3c2d1e",
     f"//registry.npmjs.org/:_authToken={R}"),
    ("npmrc_auth", f"//registry.acme.io/:_auth={DOCKER_AUTH}", f"//registry.acme.io/:_auth={R}"),
    ("docker_auth", f'{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{DOCKER_AUTH}"}}}}}}',
     f'{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{R}"}}}}}}'),
    ("docker_auth", f'\\"auth\\": \\"{DOCKER_AUTH}\\"', f'\\"auth\\": \\"{R}\\"'),
    ("kubeconfig_key", f"    client-key-data: {KUBE_KEY}", f"    client-key-data: {R}"),
    ("kubeconfig_key", f'"client-key-data": "{KUBE_KEY}"', f'"client-key-data": "{R}"'),
    ("basic_credentials", f"auth = 'Basic {DOCKER_AUTH}'", f"auth = 'Basic {R}'"),
    ("basic_credentials", f"curl -H 'X-Upstream-Auth: Basic {DOCKER_AUTH}' https://x.io",
     f"curl -H 'X-Upstream-Auth: Basic {R}' https://x.io"),
    ("command_password", "mysql -u root -pS3cretPw shop", f"mysql -u root -p{R} shop"),
    ("command_password", "mysqldump -h db -p'S3cret Pw' --all-databases",
     f"mysqldump -h db -p'{R}' --all-databases"),
    ("command_password", "sshpass -p 'S3cretPw' ssh deploy@10.0.0.7",
     f"sshpass -p '{R}' ssh deploy@10.0.0.7"),
    ("command_password", "docker login -u acme -p S3cretPw ghcr.io",
     f"docker login -u acme -p {R} ghcr.io"),
    ("npm_token", f"//registry.npmjs.org/:_authToken={NPM}",
     f"//registry.npmjs.org/:_authToken={R}"),
    ("npm_token", f"npm token created: {NPM}", f"npm token created: {R}"),
    ("pypi_token", f"password = {PYPI}", f"password = {R}"),
    ("pypi_token", f"twine upload -p {PYPI} dist/*", f"twine upload -p {R} dist/*"),
    ("aws_access_key_id", f"aws_access_key_id = {AKIA}", f"aws_access_key_id = {R}"),
    ("aws_access_key_id", f'{{"AccessKeyId": "{ASIA}"}}', f'{{"AccessKeyId": "{R}"}}'),
    ("aws_secret_access_key", f"aws_secret_access_key = {AWS_SECRET}",
     f"aws_secret_access_key = {R}"),
    ("aws_secret_access_key", f'AWS_SECRET_ACCESS_KEY="{AWS_SECRET}"',
     f'AWS_SECRET_ACCESS_KEY="{R}"'),
    ("aws_secret_access_key", f"aws configure set aws_secret_access_key {AWS_SECRET}",
     f"aws configure set aws_secret_access_key {R}"),
    ("google_api_key", f"GOOGLE_API_KEY={GOOGLE}", f"GOOGLE_API_KEY={R}"),
    ("google_api_key", f"https://maps.googleapis.com/maps/api/js?key={GOOGLE}&v=3",
     f"https://maps.googleapis.com/maps/api/js?key={R}&v=3"),
    ("slack_token", f"SLACK_BOT_TOKEN={XOXB}", f"SLACK_BOT_TOKEN={R}"),
    ("slack_token", f"client = WebClient({XOXP!r})", f"client = WebClient('{R}')"),
    ("slack_webhook", f"curl -X POST https://hooks.slack.com/services/{WEBHOOK_PATH} -d @m.json",
     f"curl -X POST https://hooks.slack.com/services/{R} -d @m.json"),
    ("slack_webhook", f'"url": "https://hooks.slack.com/workflows/{WEBHOOK_PATH}"',
     f'"url": "https://hooks.slack.com/workflows/{R}"'),
    ("stripe_key", f"STRIPE_SECRET_KEY={STRIPE_LIVE}", f"STRIPE_SECRET_KEY={R}"),
    ("stripe_key", f"stripe.api_key = '{STRIPE_RK}'", f"stripe.api_key = '{R}'"),
    ("stripe_key", f"signing secret {STRIPE_WH}", f"signing secret {R}"),
    ("huggingface_token", f"HF_TOKEN={HF}", f"HF_TOKEN={R}"),
    ("huggingface_token", f'login(token="{HF}")', f'login(token="{R}")'),
    ("telegram_bot_token", f"TELEGRAM_BOT_TOKEN={TELEGRAM}", f"TELEGRAM_BOT_TOKEN={R}"),
    ("telegram_bot_token", f"curl https://api.telegram.org/bot{TELEGRAM}/getMe",
     f"curl https://api.telegram.org/bot{R}/getMe"),
    ("jwt", f"id_token={JWT}", f"id_token={R}"),
    ("jwt", f"cookie session={JWT}; Path=/", f"cookie session={R}; Path=/"),
    ("jwt", f"Authorization: Bearer {JWT}", f"Authorization: Bearer {R}"),
    ("connection_string_password", "DATABASE_URL=postgres://app:s3cr3t@db.internal:5432/app",
     f"DATABASE_URL=postgres://app:{R}@db.internal:5432/app"),
    ("connection_string_password", "mongodb+srv://admin:P%40ss-w0rd@cluster0.mongodb.net/?x=1",
     f"mongodb+srv://admin:{R}@cluster0.mongodb.net/?x=1"),
    ("connection_string_password", "redis://:hunter2@localhost:6379/0",
     f"redis://:{R}@localhost:6379/0"),
    ("connection_string_password", "amqp://guest:p@ss@rabbit:5672", f"amqp://guest:{R}@rabbit:5672"),
    ("connection_string_password", "mysql://root:!Secr3t%@db/app", f"mysql://root:{R}@db/app"),
    # A password holding a secret-ish word is still a password.
    ("connection_string_password", "postgres://u:hunter2pass@h/db", f"postgres://u:{R}@h/db"),
    ("authorization_header", "Authorization: Basic dXNlcjpwYXNzd29yZA==",
     f"Authorization: Basic {R}"),
    ("authorization_header", 'curl -H "Authorization: Token 9f8e7d6c5b4a39281706f5e4d3c2b1a0"',
     f'curl -H "Authorization: Token {R}"'),
    ("bearer_token", 'curl -H "Authorization: Bearer abcDEF123456ghiJKL789" https://api.x.io',
     f'curl -H "Authorization: Bearer {R}" https://api.x.io'),
    ("bearer_token", "headers = {'x': 'bearer 7Rk2pQ9sLm4nVx8zWc3bYt'}",
     f"headers = {{'x': 'bearer {R}'}}"),
    ("cli_password", "curl -s -u admin:s3cret-9 https://api.x.io/v1",
     f"curl -s -u admin:{R} https://api.x.io/v1"),
    ("cli_password", "docker login --password Xy7pq9zz registry.io",
     f"docker login --password {R} registry.io"),
    ("cli_password", "mytool --token 'AbC123xyz' --verbose", f"mytool --token '{R}' --verbose"),
    ("secret_assignment", "DB_PASSWORD=hunter2", f"DB_PASSWORD={R}"),
    ("secret_assignment", "DB_PASSWORD=hunter2pass", f"DB_PASSWORD={R}"),
    ("secret_assignment", f"DefaultEndpointsProtocol=https;AccountName=a;AccountKey={AZURE_KEY};"
     "EndpointSuffix=core.windows.net",
     f"DefaultEndpointsProtocol=https;AccountName=a;AccountKey={R};"
     "EndpointSuffix=core.windows.net"),
    ("secret_assignment", "export API_SECRET='s3cr3t-v@lue'", f"export API_SECRET='{R}'"),
    ("secret_assignment", "PASSWORD=Tr0ub4dor&3", f"PASSWORD={R}"),
    ("secret_assignment", "SECRET=abc123xyz", f"SECRET={R}"),
    ("secret_assignment", "TOKEN=d41d8cd98f00b204", f"TOKEN={R}"),
    ("secret_assignment", "MYAPP_API_KEY: 3f9a0c7e1b2d4f6a", f"MYAPP_API_KEY: {R}"),
    ("secret_assignment", 'password: "correct-horse-9"', f'password: "{R}"'),
    ("secret_assignment", '{"api_key": "3f9a0c7e1b2d", "user": "bob"}',
     f'{{"api_key": "{R}", "user": "bob"}}'),
    ("secret_assignment", '\\"client_secret\\": \\"Zm9vYmFy\\"', f'\\"client_secret\\": \\"{R}\\"'),
    ("secret_assignment", "  db_pass: Sup3r!", f"  db_pass: {R}"),
    ("secret_assignment", 'const accessToken = "a9F3kQ";', f'const accessToken = "{R}";'),
    ("secret_assignment", 'os.environ["DB_PASSWORD"] = "hunter2"',
     f'os.environ["DB_PASSWORD"] = "{R}"'),
    ("secret_assignment", 'def connect(password: str = "hunter2"):',
     f'def connect(password: str = "{R}"):'),
    ("secret_assignment", "GET /cb?code=1&access_token=abc123XYZ&state=2",
     f"GET /cb?code=1&access_token={R}&state=2"),
    ("secret_assignment", "spring.datasource.password=hunter", f"spring.datasource.password={R}"),
    ("secret_assignment", "SECRET_KEY = 'django-insecure-7b$kz2'", f"SECRET_KEY = '{R}'"),
    ("webhook_url", f"curl -X POST https://discord.com/api/webhooks/{DISCORD_HOOK} -d @m.json",
     f"curl -X POST https://discord.com/api/webhooks/{R} -d @m.json"),
    ("webhook_url", f'"url": "{TEAMS_HOOK}"',
     f'"url": "https://acme.webhook.office.com/webhookb2/{R}"'),
    ("connection_string_password", f'sentry_sdk.init(dsn="https://{HEX32}@o4504.ingest.sentry.io/4505")',
     f'sentry_sdk.init(dsn="https://{R}@o4504.ingest.sentry.io/4505")'),
    ("connection_string_password", f"SENTRY_DSN=https://{HEX32}:{HEX32[::-1]}@sentry.acme.io/3",
     f"SENTRY_DSN=https://{R}@sentry.acme.io/3"),
    ("twilio_auth_token", f'client = Client("AC{HEX32[::-1]}", "{HEX32}")',
     f'client = Client("AC{HEX32[::-1]}", "{R}")'),
    ("twilio_auth_token", f"const client = require('twilio')(accountSid, '{HEX32}');",
     f"const client = require('twilio')(accountSid, '{R}');"),
    ("gcp_private_key_id", f'"private_key_id": "{HEX40}",', f'"private_key_id": "{R}",'),
    ("gcp_private_key_id", f'\\"private_key_id\\": \\"{HEX40}\\"',
     f'\\"private_key_id\\": \\"{R}\\"'),
    ("putty_private_key", PPK.replace("\\n", "\n"),
     PPK.replace("\\n", "\n").replace(PPK_PRIVATE, R)),
    ("putty_private_key", PPK, PPK.replace(PPK_PRIVATE, R)),
    ("terraform_token", f"TFE_TOKEN={TFC}", f"TFE_TOKEN={R}"),
    ("terraform_token", f'credentials "app.terraform.io" {{ token = "{TFC}" }}',
     f'credentials "app.terraform.io" {{ token = "{R}" }}'),
    ("mailchimp_api_key", f"mailchimp.setConfig({{apiKey: '{HEX32}-us21'}})",
     f"mailchimp.setConfig({{apiKey: '{R}'}})"),
    ("mailchimp_api_key", f"the key {HEX32}-us6 is for the newsletter",
     f"the key {R} is for the newsletter"),
    ("nuget_password", '<add key="ClearTextPassword" value="S3cret-Feed-Pw" />',
     f'<add key="ClearTextPassword" value="{R}" />'),
    ("nuget_password", '<add key="cleartextpassword" value="hunter2pass"/>',
     f'<add key="cleartextpassword" value="{R}"/>'),
    ("sidekiq_secret", "BUNDLE_GEMS__CONTRIBSYS__COM=0a1b2c3d:4e5f6a7b",
     f"BUNDLE_GEMS__CONTRIBSYS__COM={R}"),
    ("sidekiq_secret", 'BUNDLE_ENTERPRISE__CONTRIBSYS__COM: "0a1b2c3d:4e5f6a7b"',
     f'BUNDLE_ENTERPRISE__CONTRIBSYS__COM: "{R}"'),
    ("named_provider_token", f"my jira token is {JIRA}", f"my jira token is {R}"),
    ("named_provider_token", f'"vercel": {{"token": "{JIRA}"}}', f'"vercel": {{"token": "{R}"}}'),
    ("named_provider_token", "heroku api key 5f4dcc3b-5aa7-4c2b-9e1d-8a4f6b3c2d1e",
     f"heroku api key {R}"),
    ("discord_bot_token", f"the bot died after I pasted {DISCORD} here",
     f"the bot died after I pasted {R} here"),
]

# (rule the text looks like, text): must come back unchanged.
NEGATIVES: list[tuple[str, str]] = [
    ("private_key", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"
     "\n-----END PUBLIC KEY-----"),
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----"),
    ("private_key", 'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):'),
    ("private_key", "Never commit a private key; use an agent."),
    ("anthropic_api_key", "ANTHROPIC_API_KEY=sk-ant-..."),
    ("anthropic_api_key", "keys look like sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("openai_api_key", "a skeleton sk- prefix, then task-1234567890abcdef1234567890abcdef1234"),
    ("openai_api_key", "pip install sk-learn-tutorial-for-beginners-2024"),
    ("openai_api_key", "OPENAI_API_KEY=sk-your-key-here"),
    ("github_token", "ghp_" + "X" * 36),
    ("github_token", "run gh pr view 123; tokens start with ghp_ or github_pat_"),
    ("github_token", "commit 3f2a9c1e0b7d4e5f6a7b8c9d0e1f2a3b4c5d6e7f"),
    ("provider_token", "glpat-xxxxxxxxxxxxxxxxxxxx"),
    ("provider_token", "glpat-is-the-prefix-of-gitlab-personal-tokens"),
    ("provider_token", "DIGITALOCEAN_TOKEN=dop_v1_your_token_here"),
    ("provider_token", "SENDGRID_API_KEY=SG." + "x" * 22 + "." + "x" * 43),
    ("provider_token", "The SG.Widget class renders the grid; see hvs.example for vault"),
    ("twilio_api_key", "account sid AC" + "0123456789abcdef" * 2),
    ("twilio_api_key", "SKU 0123456789 is out of stock; key SK-2024"),
    ("discord_bot_token", 'token = os.environ["DISCORD_TOKEN"]; client.run(token)'),
    ("discord_bot_token", "client.session.headers.update(x) and token.value.strip()"),
    ("azure_client_secret", "Q~ is a tilde after a Q; 8Q~ starts a secret"),
    ("azure_client_secret", "path ~/abc8Q~ is odd"),
    ("sas_signature", 'url = f"{base}?sig={signature}&se={expiry}"'),
    ("sas_signature", "sig = hmac.new(key, msg, sha256).hexdigest()"),
    ("sas_signature", "https://books.google.com/books?id=x&pg=PA1&ots=ovRX-3arE_"
     "&sig=ACfU3U0PYB04JFG6aXcwIgFegCfBUECWIA&hl=en"),
    ("pgpass_password", "hostname:port:database:username:password"),
    ("pgpass_password", "at 12:30:45 the job finished; 10:00:00:00 is midnight"),
    ("pgpass_password", "postgres://user@db.acme.io:5432/app"),
    ("netrc_password", "the machine learning model asks for a password on login"),
    ("netrc_password", "machine api.github.com login USERNAME password TOKEN"),
    ("netrc_password", "the default password is admin"),
    ("npmrc_auth", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}"),
    ("npmrc_auth", "always-auth=true and _auth is deprecated"),
    ("docker_auth", '"auth": "<base64 of user:password>"'),
    ("docker_auth", 'auth = {"auth": auth_header, "identitytoken": None}'),
    ("kubeconfig_key", "client-key-data: DATA+OMITTED"),
    ("kubeconfig_key", "client-key-data: /home/me/.kube/client.key"),
    ("basic_credentials", "basic understanding of the authentication flow"),
    ("basic_credentials", "Basic auth: the header holds base64 of user:pass"),
    ("command_password", "mysql -h db -P 3306 -u root -p"),
    ("command_password", "mysql -u root -p shop < dump.sql && sshpass -f ~/.pw ssh u@h"),
    ("command_password", 'sshpass -p "$SSH_PASS" ssh u@h; docker login -u me --password-stdin'),
    ("npm_token", "npm_config_cache=/tmp/npm-cache"),
    ("npm_token", "npm_" + "a" * 36),
    ("pypi_token", "pip install pypi-server"),
    ("pypi_token", "tokens start with pypi-AgE and are long"),
    ("aws_access_key_id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "the AKIA prefix marks long-term keys, ASIA temporary ones"),
    ("aws_access_key_id", "XAKIA" + "Z7Q2X9R4T6Y8U3W5"),
    ("aws_secret_access_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("aws_secret_access_key", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}"),
    ("aws_secret_access_key",
     "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("google_api_key", "Google keys begin with AIza and are 39 characters long"),
    ("google_api_key", "key=AIza" + "X" * 35),
    ("google_api_key", "tokens start with ya29. and client secrets with GOCSPX-"),
    ("slack_token", "SLACK_BOT_TOKEN=xoxb-your-bot-token"),
    ("slack_token", "xoxb-123-XXXXXXXXXXXX"),
    ("slack_token", "app tokens look like xapp-1-..."),
    ("slack_webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("slack_webhook", "see https://api.slack.com/messaging/webhooks and hooks.slack.com/services/"),
    ("stripe_key", "STRIPE_PUBLISHABLE_KEY=pk_" + "live_" + "51Hq" + "q8Zr" * 6),
    ("stripe_key", "STRIPE_SECRET_KEY=sk_test_xxx"),
    ("stripe_key", "risk_live_feed_updates_are_slow"),
    ("huggingface_token", "from huggingface_hub import hf_hub_download"),
    ("huggingface_token", "hf_" + "abcdefghij" * 3),
    ("telegram_bot_token", "at 12:34:56 the job 1234567:AA finished"),
    ("telegram_bot_token", "TELEGRAM_BOT_TOKEN=123456789:AAxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("jwt", "the header eyJhbGciOiJIUzI1NiJ9 decodes to {\"alg\":\"HS256\"}"),
    ("jwt", "eyJ is base64 for {\""),
    ("jwt", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"),
    ("connection_string_password", "postgres://user:${DB_PASSWORD}@host/db"),
    ("connection_string_password", "https://user@example.com/path and http://localhost:8080/x"),
    ("connection_string_password", "postgres://user:password@localhost/db"),
    ("connection_string_password", "git@github.com:org/repo.git"),
    ("authorization_header", 'curl -H "Authorization: Basic $CREDENTIALS"'),
    ("authorization_header", "Authorization: Bearer <token>"),
    ("authorization_header", "authorization: basic auth is disabled"),
    ("bearer_token", 'headers["Authorization"] = f"Bearer {token}"'),
    ("bearer_token", "Bearer tokens are stateless; send bearer $TOKEN"),
    ("cli_password", 'curl -s -u "$API_USER:$API_PASSWORD" https://api.x.io'),
    ("cli_password", "pass --token to the command, or use docker login --password-stdin"),
    ("cli_password", "gh auth login --token $GH_TOKEN && curl -u admin: https://x.io"),
    ("secret_assignment", "task_token_count = 5"),
    ("secret_assignment", '"usage": {"input_tokens": 1234, "output_tokens": 56}'),
    ("secret_assignment", "max_token = 512"),
    ("secret_assignment", 'token = os.environ["GITHUB_TOKEN"]'),
    ("secret_assignment", 'token = os.getenv("GITHUB_TOKEN")'),
    ("secret_assignment", "const token = process.env.TOKEN"),
    ("secret_assignment", "token = settings.token"),
    ("secret_assignment", "client = Client(api_key=api_key, token=tok)"),
    ("secret_assignment", "def login(user: str, password: str) -> Token:"),
    ("secret_assignment", "token: Optional[str] = None"),
    ("secret_assignment", "Reset your password and try again."),
    ("secret_assignment", "Enter your password: it must be long"),
    ("secret_assignment", '"password": "Password"'),
    ("secret_assignment", 'print("Token: " + tok + " done")'),
    ("secret_assignment", 'if password == "":'),
    ("secret_assignment", "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"),
    ("secret_assignment", "password: !vault |"),
    ("secret_assignment", '"Authorization": "Bearer $TOKEN", "auth_token": "Bearer ${T}"'),
    ("secret_assignment", "bypass=1 compass: north PWD=/home/me"),
    ("secret_assignment", "uuid 550e8400-e29b-41d4-a716-446655440000"),
    # Found in real code and docs: names, cursors, types, colours and format specs.
    ("secret_assignment", '{"input_token": "next_token", "AWS_SESSION_TOKEN": "session-token"}'),
    ("secret_assignment", "client(secret_access_key=aws_secret_access_key)"),
    ("secret_assignment", '"nextPageToken": "AAAAKgAAAAEAAAAAAAAAA2QJKNtidVgd49TTeNwYcpD"'),
    ("secret_assignment", 'tokenizer(pad_token="[PAD]", eos_token="</s>")'),
    ("secret_assignment", '"Resource": "arn:aws:secretsmanager:*:*:secret:rds!*"'),
    ("secret_assignment", 'print(f"token {token:02x}")'),
    ("secret_assignment", 'styles = {Token: "#d8dee9", Comment: "#616e88"}'),
    ("secret_assignment", "token = -1"),
    ("secret_assignment", "private_key: Ed25519PrivateKey | Ed448PrivateKey"),
    ("secret_assignment", "'HAVE_STRUCT_PASSWD_PW_PASSWD': 1,"),
    ("connection_string_password", "redis://[[username]:[password]]@localhost:6379/0"),
    ("connection_string_password", "azureservicebus://SAS_POLICY_NAME:SAS_KEY@NAMESPACE"),
    ("webhook_url", "see https://discord.com/developers/docs/resources/webhook and /api/webhooks/"),
    ("webhook_url", "https://discord.com/api/webhooks/${DISCORD_WEBHOOK_ID}/${DISCORD_TOKEN}"),
    ("connection_string_password", "SENTRY_DSN=https://<key>@o0.ingest.sentry.io/0"),
    ("connection_string_password", "git clone https://github.com/getsentry/sentry.git"),
    ("twilio_auth_token", "client = Client(account_sid, auth_token)"),
    ("twilio_auth_token", 'md5 = Client("localhost", "d41d8cd98f00b204e9800998ecf8427")'),
    ("gcp_private_key_id", '"private_key_id": "YOUR_KEY_ID",'),
    ("gcp_private_key_id", "private_key_id = key.id  # the id, not the key"),
    ("putty_private_key", "Private-Lines: the count of base64 lines that follow"),
    ("putty_private_key", "PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 2\nAAAAC3Nz"),
    ("terraform_token", "the token looks like xxxxxxxxxxxxxx.atlasv1.zzzzzz"),
    ("terraform_token", "docs.atlasv1.example is not a token"),
    ("mailchimp_api_key", "en-us21 and the locale en-US; md5 sum d41d8cd98f00b204-us"),
    ("mailchimp_api_key", "MAILCHIMP_API_KEY=your-key-us21"),
    ("nuget_password", '<add key="ClearTextPassword" value="%NUGET_PASSWORD%" />'),
    ("nuget_password", "ClearTextPassword stores the feed password unencrypted"),
    ("sidekiq_secret", "BUNDLE_GEMS__CONTRIBSYS__COM=${SIDEKIQ_CREDENTIALS}"),
    ("sidekiq_secret", "export BUNDLE_GEMS__CONTRIBSYS__COM before bundle install"),
    ("named_provider_token", "the jira token is stored in the keychain since release 2024"),
    ("named_provider_token", "heroku key rotation: see https://devcenter.heroku.com/articles/x"),
    ("named_provider_token", "vercel token = process.env.VERCEL_TOKEN_FOR_PREVIEW_DEPLOYS"),
    ("named_provider_token", "global key lob_settings_value_for_the_2024_release"),
]

PLACEHOLDERS = [
    "your-key", "your_api_key_here", "YOUR_TOKEN", "xxx", "XXXXXXXXXXXX", "***", "${VAR}",
    "$VAR", "<token>", "<your-token>", "changeme", "...", "example", "dummy", "placeholder",
    "", "None", "null", "sk-...", "ghp_" + "x" * 36, "INSERT_TOKEN_HERE", "••••••",
]
PLACEHOLDER_TEMPLATES = [
    "API_KEY={}", "export GITHUB_TOKEN={}", 'password: "{}"', '"client_secret": "{}"',
    "DB_PASSWORD='{}'",
]


def rule_names() -> list[str]:
    return [rule.name for rule in RULES]


@pytest.mark.parametrize(("rule", "text", "expected"), POSITIVES)
def test_redacts_value_and_keeps_the_rest(rule: str, text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(("rule", "text", "expected"), POSITIVES)
def test_find_secrets_names_the_rule(rule: str, text: str, expected: str) -> None:
    found = find_secrets(text)
    assert rule in {name for name, _, _ in found}
    for _, start, end in found:
        assert text[start:end]
        assert REDACTED not in text[start:end]


@pytest.mark.parametrize(("rule", "text"), NEGATIVES)
def test_look_alikes_stay(rule: str, text: str) -> None:
    assert redact(text) is text
    assert find_secrets(text) == []


def test_every_rule_has_two_positives_and_two_negatives() -> None:
    for name in rule_names():
        assert sum(rule == name for rule, _, _ in POSITIVES) >= 2, name
        assert sum(rule == name for rule, _ in NEGATIVES) >= 2, name


def test_interface() -> None:
    assert REDACTED == "[REDACTED]"
    assert isinstance(RULES_VERSION, int) and RULES_VERSION >= 1
    assert len(set(rule_names())) == len(RULES)
    for rule in RULES:
        assert isinstance(rule, Rule)
        assert rule.pattern.pattern and rule.keywords


@pytest.mark.parametrize("template", PLACEHOLDER_TEMPLATES)
@pytest.mark.parametrize("placeholder", PLACEHOLDERS)
def test_placeholders_stay(template: str, placeholder: str) -> None:
    text = template.format(placeholder)
    assert redact(text) is text


def test_several_secrets_on_one_line() -> None:
    text = f"AKIA {AKIA} and {GHP}, db postgres://u:pw1x@h/db; TOKEN=abc123 end"
    assert redact(text) == f"AKIA {R} and {R}, db postgres://u:{R}@h/db; TOKEN={R} end"
    assert [name for name, _, _ in find_secrets(text)] == [
        "aws_access_key_id", "github_token", "connection_string_password", "secret_assignment"]


def test_secret_at_start_and_end_of_text() -> None:
    assert redact(GHP) == R
    assert redact(GHP + " leaked") == R + " leaked"
    assert redact("leaked " + OPENAI_PROJ) == "leaked " + R
    assert redact("PASSWORD=hunter2") == f"PASSWORD={R}"
    assert redact(f"{JWT}\n{HF}") == f"{R}\n{R}"


def test_multiline_private_key_block_goes_whole() -> None:
    text = "before\n" + RSA + "\nmiddle\n" + pem("OPENSSH PRIVATE KEY", 8) + "\nafter"
    assert redact(text) == f"before\n{R}\nmiddle\n{R}\nafter"
    [(name, start, end)] = find_secrets(RSA)
    assert (name, start, end) == ("private_key", 0, len(RSA))


@pytest.mark.parametrize("text", [t for _, t, _ in POSITIVES] + [
    "TOKEN=abc1&&b", "password: x1 password: y2", f"{GHP}{GHP}", f"{R}{GHP}",
])
def test_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_idempotent_when_secrets_touch() -> None:
    # A rule that looks at its neighbours can see them change once a neighbour is redacted.
    texts = [t for _, t, _ in POSITIVES] + [t for _, t in NEGATIVES[::3]]
    for first in texts:
        for second in texts[::4]:
            once = redact(first + second)
            assert redact(once) == once, (first, second)


def test_non_ascii_around_secrets() -> None:
    text = f"Ключ: GITHUB_TOKEN={GHP} — не коммитить 🚫"
    assert redact(text) == f"Ключ: GITHUB_TOKEN={R} — не коммитить 🚫"
    assert redact(f"🔑{OPENAI_PROJ}✓") == f"🔑{R}✓"
    assert redact("пароль: PASSWORD=пароль123 ok") == f"пароль: PASSWORD={R} ok"
    assert redact("postgres://u:пароль@h/db") == f"postgres://u:{R}@h/db"
    # U+0130 lowercases to two characters; offsets must not shift.
    assert redact(f"İİİ TOKEN=abc123 {GHP}") == f"İİİ TOKEN={R} {R}"
    # Lone surrogates (from surrogateescape decoding) pass through.
    assert redact("\udcff TOKEN=abc123 \udcfe") == f"\udcff TOKEN={R} \udcfe"
    plain = "Привет, мир! Ключи не нужны. 日本語のテキスト。"
    assert redact(plain) is plain


def test_long_text_matches_line_by_line() -> None:
    # Long texts are scanned in pieces cut at line ends; a key block may straddle a cut.
    lines = [f"line {i}: the api token is rotated; see https://x.io/{i} and pass it on"
             for i in range(5 * len(POSITIVES) + 5)]
    for i, (_, text, _) in enumerate(POSITIVES):
        if "\n" not in text:
            lines[i * 5 + 3] = text
    key = pem("RSA PRIVATE KEY", 60).split("\n")
    lines[100:100] = key
    big = "\n".join(lines)
    assert len(big) > 3 * 4096
    expected = [redact(line) for line in lines[:100]] + [R] + [
        redact(line) for line in lines[100 + len(key):]]
    assert redact(big) == "\n".join(expected)


def test_redacted_marker_never_triggers_a_rule() -> None:
    assert redact(R) is R
    for text in [f"TOKEN={R}", f'"password": "{R}"', f"postgres://u:{R}@h/db",
                 f"Authorization: Bearer {R}", f"https://hooks.slack.com/services/{R}",
                 f"aws_secret_access_key = {R}", f"x {R} {R}"]:
        assert redact(text) is text, text


def test_unchanged_text_is_the_same_object() -> None:
    text = "".join(["plain ", "text with no secrets at all"])
    assert redact(text) is text
    assert redact("") == ""


def test_prefilter_finds_every_keyword() -> None:
    keywords = sorted({k for rule in RULES for ks, _ in rule.parts for k in ks})
    for first in keywords:
        for second in keywords:
            text = f"x{first}{second} {second}{first}".encode()
            engine = _rules()
            found = set().union(*(engine.meaning[hit] for hit in engine.prefilter.findall(text)))
            assert {first, second} <= found, (first, second)


@pytest.mark.parametrize("text", [
    "-----BEGIN RSA PRIVATE KEY-----" * 2000,
    "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 200_000,
    "password=" * 20_000,
    "://" + "a:" * 50_000 + "@",
    "token: " + "x" * 200_000,
    "sk-" + "a1B2-" * 40_000,
    "-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + "Version: x\n" * 20_000,
    "machine a.b " * 20_000 + " password",
    ("mysql " + "-u x " * 40) * 1_000,
    "basic " + "QUFB" * 50_000,
    ":_auth=" * 20_000,
    "aaa8Q~" * 30_000,
    ("token " + "A" * 23 + ".bbbbbb.") * 5_000,
    "jira token is " * 20_000,
    "Private-Lines: 1\n" + ("QUFB" * 16 + "\n") * 20_000,
    "client(" * 30_000,
    "-us12" * 40_000,
    ".atlasv1." * 30_000,
    "discord.com/api/webhooks/" * 10_000,
    "://" + "0a" * 100_000 + "@",
])
def test_pathological_input_is_redacted(text: str) -> None:
    """It returns (a backtracking rule would hang the suite); how long it takes, against an
    input four times shorter, is bench/secrets_linear_bench.py's figure, not an assertion here."""
    out = redact(text)
    assert isinstance(out, str) and len(out) <= len(text) + 1000


A = "a1B2c3D4e5F6g7H8i9J0" * 20  # letters of both cases and digits, sliced to length
H = "0a1b2c3d4e5f6789" * 20  # lowercase hex
U = "A1B2C3D4E5F6G7H8I9J0" * 12  # uppercase and digits
# gitleaks' prefixed tokens, one per rule (name, token): written here from their formats.
PREFIXED = [
    ("1password secret key", "A3-" + U[:6] + "-" + U[:11] + "-" + U[:5] + "-" + U[:5] + "-"
     + U[:5]),
    ("1password service account", "ops_eyJ" + A[:250]),
    ("adobe client secret", "p8e-" + A[:32]),
    ("airtable", "pat" + A[:14] + "." + H[:64]),
    ("artifactory api key", "AKCp" + A[:69]),
    ("artifactory reference", "cmVmd" + A[:59]),
    ("atlassian api token", "ATATT3" + "xFfGF0" + A[:180] + "=" + H[:8]),
    ("clickhouse secret", "4b1d" + A[:38]),
    ("clojars", "CLOJARS_" + H[:60]),
    ("cloudflare origin ca", "v1.0-" + H[:24] + "-" + H[:146]),
    ("defined networking", "dnkey-" + A[:26] + "-" + A[:52]),
    ("duffel", "duffel_" + "live_" + A[:43]),
    ("dynatrace", "dt0c01." + U[:24] + "." + U[:64]),
    ("easypost", "EZAK" + A[:54]),
    ("facebook page token", "EAAC" + A[:110]),
    ("figma pat", "figd_" + A[:40]),
    ("flutterwave secret", "FLWSECK_TEST-" + "a1b2c3d4e5f6a7b8a1b2c3d4e5f6a7b8" + "-X"),
    ("gitlab feed token", "glft-" + A[:20]),
    ("gitlab runner registration", "GR1348941" + A[:20]),
    ("grafana api key", "eyJrIjoi" + A[:80]),
    ("harness pat", "pat." + A[:22] + "." + A[:24] + "." + A[:20]),
    ("hugging face org", "api_org_" + "aBcDeFgHiJ" * 3 + "kLmN"),
    ("infracost", "ico-" + A[:32]),
    ("intra42", "s-s4t2ud-" + H[:64]),
    ("mailgun private key", "key-" + H[:32]),
    ("mapbox secret", "sk.eyJ" + A[:60] + "." + A[:22]),
    ("new relic browser", "NRJS-" + H[:19]),
    ("new relic insert key", "NRII-" + A[:32]),
    ("notion legacy", "secret_" + A[:43]),
    ("notion", "ntn_" + "12345678901" + A[:35]),
    ("octopus deploy", "API-" + U[:26]),
    ("openshift", "sha256~" + A[:43]),
    ("prefect", "pnu_" + A[:36]),
    ("pulumi", "pul-" + H[:40]),
    ("readme", "rdme_" + H[:70]),
    ("rubygems", "rubygems_" + H[:48]),
    ("scalingo", "tk-us-" + A[:48]),
    ("brevo", "xkeysib-" + H[:64] + "-" + A[:16]),
    ("settlemint", "sm_pat_" + A[:16]),
    ("shippo", "shippo_" + "live_" + H[:40]),
    ("sourcegraph", "sgp_" + H[:16] + "_" + H[:40]),
    ("square oauth secret", "sq0csp-" + A[:43]),
    ("typeform", "tfp_" + A[:59]),
    ("vercel", "vcp_" + A[:56]),
    ("yandex api key", "AQVN" + A[:36]),
    ("doppler", "dp.pt." + A[:43]),
    ("age", "AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58]),
    ("base64 jwt", "ZXlKaGJHY2lPaU" + A[:60]),
]


# The prefixes the prefilter leaves out are found by the provider named before them.
NAMED = [
    ("alibaba access key", "LTAI" + A[:20]),
    ("dropbox token", "sl." + A[:135]),
    ("square access token", "EAAA" + A[:60]),
    ("yandex token", "t1." + A[:40] + "." + A[:86]),
    ("frame.io token", "fio-u-" + A[:64]),
]


@pytest.mark.parametrize(("kind", "token"), NAMED, ids=[k for k, _ in NAMED])
def test_tokens_the_prefilter_leaves_out_go_by_their_providers_name(kind: str, token: str):
    for text in (f"my {kind} is {token}", f'{kind.replace(" ", "_")}: "{token}"'):
        assert redact(text) == text.replace(token, REDACTED), text
    look_alike = f"the {kind} docs: " + token[:12] + "-" * 30
    assert redact(look_alike) is look_alike


@pytest.mark.parametrize(("kind", "token"), PREFIXED, ids=[k for k, _ in PREFIXED])
def test_every_prefixed_token_goes(kind: str, token: str) -> None:
    for text in (f"{kind}: {token}", f'{kind} = {{"token": "{token}"}}',
                 f"the {kind} key {token}, then"):
        assert token not in redact(text) and REDACTED in redact(text), text
    # The look-alike: the prefix with too short a body, or a body of one kind of character.
    for text in (f"see {token[:len(token) // 3]}", f"see {token[:7]}" + "x" * 80):
        if kind == "age":
            continue  # the alphabet has no case: only the length tells, checked above
        assert redact(text) is text, text
