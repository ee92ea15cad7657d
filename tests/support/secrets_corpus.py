"""Realistic fake secrets, as people paste them into sessions, notes and configs, and the
look-alikes that must survive redaction.

`PROMISED` holds the kinds the README promises (provider API keys and tokens, private key
blocks, passwords in connection strings, `*_TOKEN=` / `*_SECRET=` / `*_PASSWORD=` values,
authorization headers); `OTHER` the other kinds people commonly paste (registry tokens, netrc
and pgpass lines, database and ssh command lines, cloud connection strings, ...). Each case
names the value that must not survive. `NEGATIVES` are texts that must come back unchanged.

Every value is drawn from a seeded generator, so no real-looking token is written out in this
file and the corpus is the same on every run.
"""

from __future__ import annotations

import base64
import random
from dataclasses import dataclass

_rng = random.Random(20_241_201)

LOWER = "abcdefghijklmnopqrstuvwxyz"
UPPER = LOWER.upper()
DIGITS = "0123456789"
ALNUM = LOWER + UPPER + DIGITS
HEX = DIGITS + "abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"


def rnd(alphabet: str, n: int) -> str:
    """n characters of alphabet, with at least one lowercase, uppercase and digit when the
    alphabet has them (real keys do; a value without them reads as a word)."""
    while True:
        value = "".join(_rng.choice(alphabet) for _ in range(n))
        if n < 12 or all(any(c in value for c in cls) for cls in (LOWER, UPPER, DIGITS)
                         if any(c in alphabet for c in cls)):
            return value


def b64(n_bytes: int) -> str:
    return base64.b64encode(bytes(_rng.randrange(256) for _ in range(n_bytes))).decode()


def uuid() -> str:
    h = rnd(HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


@dataclass(frozen=True)
class Case:
    kind: str
    text: str
    secret: str


def _sub(kind: str, template: str, secret: str) -> Case:
    """A case whose secret sits where the template has `§`."""
    return Case(kind, template.replace("§", secret), secret)


def _pem(label: str, lines: int = 6, newline: str = "\n", *, end: bool = True,
         armor: str = "") -> tuple[str, str]:
    body = newline.join(b64(48) for _ in range(lines))
    head = f"-----BEGIN {label}-----{newline}{armor}"
    tail = f"{newline}-----END {label}-----" if end else ""
    return head + body + tail, body.split(newline)[0]


# --- the promised kinds --------------------------------------------------------------------

_ant = "sk-ant-" + "api03-" + rnd(URLSAFE, 93) + "AA"
_ant2 = "sk-ant-" + "oat01-" + rnd(URLSAFE, 93) + "AA"
_ant3 = "sk-ant-" + "admin01-" + rnd(URLSAFE, 93) + "AA"
_oai_proj = "sk-" + "proj-" + rnd(URLSAFE, 74) + "T3Blbk" + "FJ" + rnd(URLSAFE, 74)
_oai_old = "sk-" + rnd(ALNUM, 20) + "T3Blbk" + "FJ" + rnd(ALNUM, 20)
_oai_svc = "sk-" + "svcacct-" + rnd(URLSAFE, 58) + "T3Blbk" + "FJ" + rnd(URLSAFE, 58)
_orouter = "sk-" + "or-v1-" + rnd(HEX, 64)
_ghp = "ghp_" + rnd(ALNUM, 36)
_gho = "gho_" + rnd(ALNUM, 36)
_ghs = "ghs_" + rnd(ALNUM, 36)
_ghu = "ghu_" + rnd(ALNUM, 36)
_ghr = "ghr_" + rnd(ALNUM, 76)
_ghpat = "github_pat_" + rnd(ALNUM, 22) + "_" + rnd(ALNUM, 59)
_akia = "AKIA" + rnd(UPPER + "234567", 16)
_asia = "ASIA" + rnd(UPPER + "234567", 16)
_aws_secret = rnd(ALNUM + "/+", 40)
_aws_secret2 = rnd(ALNUM + "/+", 40)
_aws_session = "IQoJb3JpZ2luX2Vj" + rnd(B64, 300)
_aiza = "AIza" + rnd(URLSAFE, 35)
_aiza2 = "AIza" + rnd(URLSAFE, 35)
_ya29 = "ya29." + rnd(URLSAFE, 160)
_gocspx = "GOCSPX-" + rnd(URLSAFE, 28)
_xoxb = "xoxb-" + rnd(DIGITS, 12) + "-" + rnd(DIGITS, 13) + "-" + rnd(ALNUM, 24)
_xoxp = "xoxp-" + "-".join(rnd(DIGITS, 12) for _ in range(3)) + "-" + rnd(HEX, 32)
_xapp = "xapp-1-" + "A0" + rnd(UPPER + DIGITS, 9) + "-" + rnd(DIGITS, 13) + "-" + rnd(HEX, 64)
_xoxe = "xoxe-1-" + rnd(UPPER + DIGITS, 146)
_hook = "T0" + rnd(UPPER + DIGITS, 8) + "/B0" + rnd(UPPER + DIGITS, 9) + "/" + rnd(ALNUM, 24)
_sk_live = "sk_" + "live_" + "51" + rnd(ALNUM, 97)
_sk_test = "sk_" + "test_" + "51" + rnd(ALNUM, 97)
_rk_live = "rk_" + "live_" + "51" + rnd(ALNUM, 97)
_whsec = "whsec_" + rnd(ALNUM, 32)
_hf = "hf_" + rnd(ALNUM, 34)
_tg = rnd(DIGITS, 10) + ":AA" + rnd(URLSAFE, 33)
_jwt = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJ" + rnd(URLSAFE, 60) + "." + rnd(URLSAFE, 43))
_jwt2 = ("eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ." + "eyJ" + rnd(URLSAFE, 120) + "."
         + rnd(URLSAFE, 342))
_rsa, _rsa_line = _pem("RSA PRIVATE KEY")
_ossh, _ossh_line = _pem("OPENSSH PRIVATE KEY")
_ec, _ec_line = _pem("EC PRIVATE KEY", 3)
_pkcs8_json, _pkcs8_line = _pem("PRIVATE KEY", 8, "\\n")
_pgp, _pgp_line = _pem("PGP PRIVATE KEY BLOCK", 8, armor="Version: GnuPG v2\n\n")
_pgp_cut, _pgp_cut_line = _pem("PGP PRIVATE KEY BLOCK", 3, end=False,
                               armor="Version: GnuPG v2\nComment: exported by hand\n\n")
_rsa_cut, _rsa_cut_line = _pem("RSA PRIVATE KEY", 2, end=False)
_enc_pkcs8, _enc_pkcs8_line = _pem("ENCRYPTED PRIVATE KEY", 5)
_pw = [rnd(ALNUM, 14), rnd(ALNUM + "!#%*", 16), rnd(ALNUM, 20), rnd(ALNUM, 12)]

PROMISED: list[Case] = [
    Case("anthropic", f"export ANTHROPIC_API_KEY={_ant}", _ant),
    Case("anthropic", f'{{"env": {{"ANTHROPIC_API_KEY": "{_ant}"}}}}', _ant),
    Case("anthropic", f"my key {_ant} stopped working after the billing change", _ant),
    Case("anthropic", f"curl https://api.anthropic.com/v1/messages -H 'x-api-key: {_ant}'", _ant),
    Case("anthropic", f"client = anthropic.Anthropic(api_key=\"{_ant2}\")", _ant2),
    Case("anthropic", f"CLAUDE_CODE_OAUTH_TOKEN={_ant2}", _ant2),
    Case("anthropic", f"admin key: {_ant3}", _ant3),
    Case("openai", f"OPENAI_API_KEY={_oai_proj}", _oai_proj),
    Case("openai", f"openai.api_key = '{_oai_old}'", _oai_old),
    Case("openai", f"use this one {_oai_svc} for the batch job", _oai_svc),
    Case("openai", f'"Authorization: Bearer {_oai_proj}"', _oai_proj),
    Case("openai", f"export OPENROUTER_API_KEY=\"{_orouter}\"", _orouter),
    Case("openai", f"llm keys set openai --value {_oai_old}", _oai_old),
    Case("github", f"git remote set-url origin https://{_ghp}@github.com/acme/app.git", _ghp),
    Case("github", f"https://x-access-token:{_ghs}@github.com/acme/app.git", _ghs),
    Case("github", f"GH_TOKEN={_gho} gh pr list", _gho),
    Case("github", f"echo {_ghpat} | gh auth login --with-token", _ghpat),
    Case("github", f"refresh_token={_ghr}&expires_in=15897600", _ghr),
    Case("github", f"https://acme-bot:{_ghu}@github.com", _ghu),
    Case("github", f"the token is {_ghp}, scopes: repo, workflow", _ghp),
    Case("github", f'{{"github.token": "{_ghpat}"}}', _ghpat),
    Case("aws", f"[default]\naws_access_key_id = {_akia}\naws_secret_access_key = {_aws_secret}",
         _aws_secret),
    Case("aws", f"[default]\naws_access_key_id = {_akia}\naws_secret_access_key = {_aws_secret}",
         _akia),
    Case("aws", f"export AWS_SECRET_ACCESS_KEY={_aws_secret2}", _aws_secret2),
    Case("aws", f"aws configure set aws_secret_access_key {_aws_secret}", _aws_secret),
    Case("aws", f'"Credentials": {{"AccessKeyId": "{_asia}", "SecretAccessKey": '
         f'"{_aws_secret2}", "SessionToken": "{_aws_session}"}}', _aws_secret2),
    Case("aws", f'"Credentials": {{"AccessKeyId": "{_asia}", "SecretAccessKey": '
         f'"{_aws_secret2}", "SessionToken": "{_aws_session}"}}', _aws_session),
    Case("aws", f"export AWS_SESSION_TOKEN={_aws_session}", _aws_session),
    Case("aws", f"AWS_ACCESS_KEY_ID={_akia} AWS_SECRET_ACCESS_KEY={_aws_secret} aws s3 ls",
         _aws_secret),
    Case("aws", f"boto3.client('s3', aws_access_key_id='{_akia}', "
         f"aws_secret_access_key='{_aws_secret2}')", _aws_secret2),
    Case("aws", f"the key id {_asia} is temporary", _asia),
    Case("google", f"https://maps.googleapis.com/maps/api/geocode/json?address=x&key={_aiza}",
         _aiza),
    Case("google", f'const firebaseConfig = {{ apiKey: "{_aiza2}", authDomain: "x.web.app" }}',
         _aiza2),
    Case("google", f"GEMINI_API_KEY={_aiza}", _aiza),
    Case("google", f"access token {_ya29}", _ya29),
    Case("google", f'{{"access_token": "{_ya29}", "expires_in": 3599, "token_type": "Bearer"}}',
         _ya29),
    Case("google", f"curl -H \"Authorization: Bearer {_ya29}\" https://www.googleapis.com/x",
         _ya29),
    Case("google", f"client secret is {_gocspx}", _gocspx),
    Case("google", f'{{"installed": {{"client_id": "1-x.apps.googleusercontent.com", '
         f'"client_secret": "{_gocspx}"}}}}', _gocspx),
    Case("google", f"GOOGLE_CLIENT_SECRET={_gocspx}", _gocspx),
    Case("google", f'{{"type": "service_account", "private_key": "{_pkcs8_json}\\n"}}',
         _pkcs8_line),
    Case("slack", f"SLACK_BOT_TOKEN={_xoxb}", _xoxb),
    Case("slack", f"client = WebClient(token='{_xoxp}')", _xoxp),
    Case("slack", f"SLACK_APP_TOKEN={_xapp}", _xapp),
    Case("slack", f"socket mode needs the app token {_xapp}", _xapp),
    Case("slack", f"the refresh token {_xoxe} rotates", _xoxe),
    Case("slack", f"curl -X POST -d @msg.json https://hooks.slack.com/services/{_hook}",
         _hook.rsplit("/", 1)[-1]),
    Case("slack", f"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{_hook}",
         _hook.rsplit("/", 1)[-1]),
    Case("stripe", f"STRIPE_SECRET_KEY={_sk_live}", _sk_live),
    Case("stripe", f"stripe.api_key = \"{_sk_test}\"", _sk_test),
    Case("stripe", f"restricted key {_rk_live} for the reporting job", _rk_live),
    Case("stripe", f"STRIPE_WEBHOOK_SECRET={_whsec}", _whsec),
    Case("stripe", f"stripe listen prints: Ready! Your webhook signing secret is {_whsec}",
         _whsec),
    Case("huggingface", f"huggingface-cli login --token {_hf}", _hf),
    Case("huggingface", f"HF_TOKEN={_hf}", _hf),
    Case("huggingface", f"pipeline('text-generation', token=\"{_hf}\")", _hf),
    Case("telegram", f"TELEGRAM_BOT_TOKEN={_tg}", _tg),
    Case("telegram", f"curl https://api.telegram.org/bot{_tg}/getUpdates", _tg),
    Case("telegram", f"BotFather gave me {_tg}", _tg),
    Case("jwt", f"Authorization: Bearer {_jwt}", _jwt),
    Case("jwt", f"Set-Cookie: session={_jwt2}; HttpOnly; Path=/", _jwt2),
    Case("jwt", f"decode this: {_jwt}", _jwt),
    Case("jwt", f'{{"id_token": "{_jwt2}"}}', _jwt2),
    Case("private_key", f"cat ~/.ssh/id_rsa\n{_rsa}\n", _rsa_line),
    Case("private_key", _ossh, _ossh_line),
    Case("private_key", f"key.pem:\n{_ec}", _ec_line),
    Case("private_key", f"here is the key\n{_pgp}\nkeep it safe", _pgp_line),
    Case("private_key", f"gpg --export-secret-keys prints\n{_pgp_cut}", _pgp_cut_line),
    Case("private_key", f"head -3 key.pem\n{_rsa_cut}", _rsa_cut_line),
    Case("private_key", _enc_pkcs8, _enc_pkcs8_line),
    Case("private_key", '{"content": "' + _pkcs8_json + '"}', _pkcs8_line),
    Case("connection", f"DATABASE_URL=postgres://app:{_pw[0]}@db.internal:5432/app", _pw[0]),
    Case("connection", "postgres://u:hunter2pass@h/db", "hunter2pass"),
    Case("connection", f"mongodb+srv://admin:{_pw[1]}@cluster0.ab1cd.mongodb.net/?retryWrites=true",
         _pw[1]),
    Case("connection", f"REDIS_URL=redis://default:{_pw[2]}@redis-12345.c1.cloud.redislabs.com:12345",
         _pw[2]),
    Case("connection", f"amqp://guest:{_pw[3]}@rabbit:5672/vhost", _pw[3]),
    Case("connection", f"mysql://root:{_pw[0]}@127.0.0.1:3306/shop", _pw[0]),
    Case("connection", f"engine = create_engine('postgresql+psycopg2://scott:{_pw[2]}@localhost/test')",
         _pw[2]),
    Case("connection", "psql postgresql://postgres:mysecretpassword@localhost:5432/postgres",
         "mysecretpassword"),
    Case("connection", "postgres://deploy:tokenized9@pg.acme.io/prod", "tokenized9"),
    Case("connection", "amqps://worker:Pa55word-2024@mq.acme.io", "Pa55word-2024"),
    Case("connection", f"https://user:{_pw[1]}@nexus.acme.io/repository/pypi/simple", _pw[1]),
    Case("connection", f"git clone https://oauth2:{_pw[2]}@gitlab.acme.io/g/p.git", _pw[2]),
    Case("assignment", "DB_PASSWORD=hunter2pass", "hunter2pass"),
    Case("assignment", f"SECRET_KEY = '{_pw[1]}'", _pw[1]),
    Case("assignment", f"JWT_SECRET={_pw[2]}", _pw[2]),
    _sub("assignment", "NEXTAUTH_SECRET=\"§\"", b64(32)),
    Case("assignment", f"  password: {_pw[0]}", _pw[0]),
    Case("assignment", f'{{"username": "admin", "password": "{_pw[3]}"}}', _pw[3]),
    Case("assignment", f"MYSQL_ROOT_PASSWORD: {_pw[0]}", _pw[0]),
    Case("assignment", f"export API_TOKEN=\"{_pw[2]}\"", _pw[2]),
    Case("assignment", f"SESSION_SECRET={_pw[1]}", _pw[1]),
    Case("assignment", f"client_secret={_pw[2]}&grant_type=client_credentials", _pw[2]),
    Case("assignment", f"spring.datasource.password={_pw[3]}", _pw[3]),
    Case("assignment", f"password = \"{_pw[0]}\"  # prod, rotate monthly", _pw[0]),
    _sub("assignment", "ENCRYPTION_KEY=§", rnd(HEX, 64)),
    _sub("assignment", "os.environ['OPENWEATHER_API_KEY'] = '§'", rnd(HEX, 32)),
    Case("assignment", f"  db_pass: \"{_pw[1]}\"", _pw[1]),
    Case("assignment", "DB_PASSWORD=mypassword123", "mypassword123"),
    Case("assignment", "ADMIN_PASSWORD=secretpass99", "secretpass99"),
    Case("assignment", f"stringData:\n  password: {_pw[2]}", _pw[2]),
    _sub("assignment", '\\"api_key\\": \\"§\\"', rnd(HEX, 32)),
    _sub("assignment", "const accessToken = '§';", rnd(ALNUM, 40)),
    _sub("assignment", "TWILIO_AUTH_TOKEN=§", rnd(HEX, 32)),
    _sub("header", "curl -H 'Authorization: Basic §' https://api.acme.io", b64(24)),
    _sub("header", "curl -H \"Authorization: Token §\" https://api.acme.io", rnd(HEX, 40)),
    _sub("header", "headers = {'Authorization': 'Bearer §'}", rnd(ALNUM, 40)),
    _sub("header", "Authorization: Bearer §", rnd(URLSAFE, 48)),
    _sub("header", "-H \"X-Api-Key: §\"", rnd(ALNUM, 32)),
    Case("cli", f"curl -u admin:{_pw[0]} https://jenkins.acme.io/api/json", _pw[0]),
    Case("cli", f"docker login -u acme --password {_pw[1]} registry.acme.io", _pw[1]),
    Case("cli", f"vault login -method=userpass username=me password={_pw[2]}", _pw[2]),
    Case("cli", f"heroku config:set API_SECRET={_pw[3]}", _pw[3]),
]

# --- the other kinds people paste ------------------------------------------------------------

_glpat = "glpat-" + rnd(URLSAFE, 20)
_glpat2 = "glpat-" + rnd(URLSAFE, 36) + ".01." + rnd(LOWER + DIGITS, 9)
_glrt = "glrt-" + rnd(URLSAFE, 20)
_gldt = "gldt-" + rnd(URLSAFE, 20)
_npm = "npm_" + rnd(ALNUM, 36)
_npm_uuid = uuid()
_pypi = "pypi-" + "AgEIcHlwaS5vcmc" + rnd(URLSAFE, 70)
_pypi_test = "pypi-" + "AgENdGVzdC5weXBpLm9yZw" + rnd(URLSAFE, 70)
_netrc_pw = [rnd(ALNUM, 16), uuid(), rnd(ALNUM + "!@#", 14)]
_pgpass_pw = [rnd(ALNUM + "!%", 14), "hunter2pass", rnd(ALNUM, 18)]
_mysql_pw = [rnd(ALNUM, 12), rnd(ALNUM, 14)]
_ssh_pw = [rnd(ALNUM, 12), rnd(ALNUM + "!", 13)]
_azure_key = b64(64)
_azure_sb = b64(32)
_azure_sig = rnd(ALNUM, 30) + "%2B" + rnd(ALNUM, 10) + "%3D"
_azure_ad = rnd(ALNUM, 3) + "8Q~" + rnd(ALNUM + "_~.-", 34)
_sg = "SG." + rnd(URLSAFE, 22) + "." + rnd(URLSAFE, 43)
_discord = ("MT" + rnd("AEIMQUYcgk", 1) + rnd("wxyz012345", 1)
            + "".join(rnd("MNO", 1) + rnd("DTjz", 1) + rnd("AEIMQUYcgk", 1)
                      + rnd("wxyz012345", 1) for _ in range(5))
            + "." + rnd(URLSAFE, 6) + "." + rnd(URLSAFE, 38))
_discord2 = ("OT" + rnd("AEIMQUYcgk", 1) + rnd("wxyz012345", 1)
             + "".join(rnd("MNO", 1) + rnd("DTjz", 1) + rnd("AEIMQUYcgk", 1)
                       + rnd("wxyz012345", 1) for _ in range(5)) + "MQ"
             + "." + rnd(URLSAFE, 6) + "." + rnd(URLSAFE, 27))
_twilio_sk = "SK" + rnd(HEX, 32)
_twilio_auth = rnd(HEX, 32)
_dop = "dop_v1_" + rnd(HEX, 64)
_doo = "doo_v1_" + rnd(HEX, 64)
_docker_auth = base64.b64encode(f"acme:{rnd(ALNUM, 16)}".encode()).decode()
_kube_key = b64(120)
_basic = base64.b64encode(f"deploy:{rnd(ALNUM, 16)}".encode()).decode()
_shpat = "shpat_" + rnd(HEX, 32)
_hvs = "hvs." + rnd(URLSAFE, 95)
_lin = "lin_api_" + rnd(ALNUM, 40)
_pmak = "PMAK-" + rnd(HEX, 24) + "-" + rnd(HEX, 34)
_gsk = "gsk_" + rnd(ALNUM, 52)
_pplx = "pplx-" + rnd(ALNUM, 48)
_r8 = "r8_" + rnd(ALNUM, 37)
_dp = "dp.pt." + rnd(ALNUM, 43)
_age = "AGE-SECRET-KEY-1" + "".join(_rng.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
                                    for _ in range(58))
_sbp = "sbp_" + rnd(HEX, 40)
_glsa = "glsa_" + rnd(ALNUM, 32) + "_" + rnd(HEX, 8)
_dapi = "dapi" + rnd(HEX, 32)
_sntryu = "sntryu_" + rnd(HEX, 64)
_nrak = "NRAK-" + rnd(UPPER + DIGITS, 27)
# What gitleaks' catalogue holds beyond the kinds above, as people paste it.
_discord3 = ("MTE" + rnd("wxyz012345", 1)
             + "".join(rnd("MNO", 1) + rnd("DTjz", 1) + rnd("AEIMQUYcgk", 1)
                       + rnd("wxyz012345", 1) for _ in range(5)) + "Mg"
             + "." + rnd(URLSAFE, 6) + "." + rnd(URLSAFE, 38))
_discord_hook = rnd(DIGITS, 19) + "/" + rnd(URLSAFE, 68)
_twilio_auth2 = rnd(HEX, 32)
_sentry_key = rnd(HEX, 32)
_ppk_private = rnd(B64, 44)
_ppk = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\n"
        f"Public-Lines: 2\n{rnd(B64, 64)}\n{rnd(B64, 20)}\nPrivate-Lines: 1\n{_ppk_private}"
        f"\nPrivate-MAC: {rnd(HEX, 64)}")
_age2 = "AGE-SECRET-KEY-1" + "".join(_rng.choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
                                     for _ in range(58))
_gcp_key_id = rnd(HEX, 40)
_atatt = "ATATT3" + "xFfGF0" + rnd(URLSAFE, 174) + "=" + rnd(HEX.upper(), 8)
_jira = rnd(ALNUM, 24)
_doppler = "dp.st." + "prd." + rnd(ALNUM, 40)
_figd = "figd_" + rnd(URLSAFE, 40)
_mailchimp = rnd(HEX, 32) + "-us" + rnd(DIGITS, 2)
_mailgun = "key-" + rnd(HEX, 32)
_notion_old = "secret_" + rnd(ALNUM, 43)
_notion_new = "ntn_" + rnd(DIGITS, 11) + rnd(ALNUM, 35)
_tfc = rnd(ALNUM, 14) + ".atlasv1." + rnd(URLSAFE, 67)
_vercel = rnd(ALNUM, 24)
_vercel2 = "vcp_" + rnd(ALNUM, 56)
_tfp = "tfp_" + rnd(URLSAFE, 59)
_xkeysib = "xkeysib-" + rnd(HEX, 64) + "-" + rnd(ALNUM, 16)
_sgp = "sgp_" + rnd(HEX, 16) + "_" + rnd(HEX, 40)
_rubygems = "rubygems_" + rnd(HEX, 48)
_pul = "pul-" + rnd(HEX, 40)
_dt = "dt0c01." + rnd(UPPER + DIGITS, 24) + "." + rnd(UPPER + DIGITS, 64)
_grafana = "eyJrIjoi" + rnd(ALNUM, 72)
_ops = "ops_eyJ" + rnd(B64, 260)

OTHER: list[Case] = [
    Case("gitlab", f"git push https://oauth2:{_glpat}@gitlab.com/g/p.git", _glpat),
    Case("gitlab", f"GITLAB_TOKEN={_glpat}", _glpat),
    Case("gitlab", f"my gitlab token {_glpat2} expires in May", _glpat2),
    Case("gitlab", f"curl --header \"PRIVATE-TOKEN: {_glpat}\" https://gitlab.com/api/v4/user",
         _glpat),
    Case("gitlab", f"gitlab-runner register --token {_glrt}", _glrt),
    Case("gitlab", f"deploy token {_gldt}", _gldt),
    Case("npm", f"//registry.npmjs.org/:_authToken={_npm}", _npm),
    Case("npm", f"//registry.npmjs.org/:_authToken={_npm_uuid}", _npm_uuid),
    Case("npm", f"//npm.pkg.github.com/:_authToken={_ghp}", _ghp),
    Case("npm", f"npm token create printed {_npm}", _npm),
    Case("npm", f"NPM_TOKEN={_npm} npm publish", _npm),
    Case("npm", f"//registry.acme.io/:_auth={_basic}", _basic),
    Case("pypi", f"[pypi]\n  username = __token__\n  password = {_pypi}", _pypi),
    Case("pypi", f"twine upload -u __token__ -p {_pypi} dist/*", _pypi),
    Case("pypi", f"UV_PUBLISH_TOKEN={_pypi_test}", _pypi_test),
    Case("pypi", f"the upload token is {_pypi}", _pypi),
    Case("netrc", f"machine api.heroku.com\n  login me@acme.io\n  password {_netrc_pw[1]}",
         _netrc_pw[1]),
    Case("netrc", f"machine git.acme.io login deploy password {_netrc_pw[0]}", _netrc_pw[0]),
    Case("netrc", f"echo 'machine pypi.acme.io login ci password {_netrc_pw[2]}' >> ~/.netrc",
         _netrc_pw[2]),
    Case("netrc", f"default login anonymous password {_netrc_pw[0]}", _netrc_pw[0]),
    Case("pgpass", f"db.acme.io:5432:app:appuser:{_pgpass_pw[0]}", _pgpass_pw[0]),
    Case("pgpass", f"echo '*:*:*:postgres:{_pgpass_pw[1]}' > ~/.pgpass", _pgpass_pw[1]),
    Case("pgpass", f"~/.pgpass:\nlocalhost:5433:*:replicator:{_pgpass_pw[2]}", _pgpass_pw[2]),
    Case("pgpass", f"pg.internal:6432:billing:billing_rw:{_pgpass_pw[2]}", _pgpass_pw[2]),
    Case("mysql", f"mysql -u root -p{_mysql_pw[0]} shop", _mysql_pw[0]),
    Case("mysql", f"mysqldump -h db -u backup -p'{_mysql_pw[1]}' --all-databases > all.sql",
         _mysql_pw[1]),
    Case("mysql", f"mysql --user=root --password={_mysql_pw[0]} -e 'show databases'",
         _mysql_pw[0]),
    Case("mysql", f"mariadb -uadmin -p{_mysql_pw[1]} -h 10.0.0.5", _mysql_pw[1]),
    Case("mysql", f"MYSQL_PWD={_mysql_pw[0]} mysql -u root", _mysql_pw[0]),
    Case("sshpass", f"sshpass -p '{_ssh_pw[0]}' ssh deploy@10.0.0.7", _ssh_pw[0]),
    Case("sshpass", f"sshpass -p {_ssh_pw[1]} scp dump.sql root@backup:/srv", _ssh_pw[1]),
    Case("sshpass", f"sshpass -p\"{_ssh_pw[0]}\" rsync -a ./ u@h:/x", _ssh_pw[0]),
    Case("azure", "DefaultEndpointsProtocol=https;AccountName=acmestore;AccountKey="
         f"{_azure_key};EndpointSuffix=core.windows.net", _azure_key),
    Case("azure", f'"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=fn;'
         f'AccountKey={_azure_key}"', _azure_key),
    Case("azure", "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName="
         f"RootManageSharedAccessKey;SharedAccessKey={_azure_sb}", _azure_sb),
    Case("azure", "https://acmestore.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b"
         f"&srt=o&sp=r&se=2025-01-01T00:00:00Z&spr=https&sig={_azure_sig}", _azure_sig),
    Case("azure", f"az storage blob upload --account-key {_azure_key} -f x -c y", _azure_key),
    Case("azure", f"AZURE_CLIENT_SECRET={_azure_ad}", _azure_ad),
    Case("azure", f"the app secret value is {_azure_ad}", _azure_ad),
    Case("sendgrid", f"SENDGRID_API_KEY={_sg}", _sg),
    Case("sendgrid", f"sg = SendGridAPIClient('{_sg}')", _sg),
    Case("sendgrid", f"sendgrid key {_sg}", _sg),
    Case("discord", f"client.run(\"{_discord}\")", _discord),
    Case("discord", f"DISCORD_TOKEN={_discord2}", _discord2),
    Case("discord", f"my bot token is {_discord}, it got reset", _discord),
    Case("discord", f"Authorization: Bot {_discord2}", _discord2),
    Case("discord", f"bot.run('{_discord2}')", _discord2),
    Case("twilio", f"twilio api key {_twilio_sk} with its secret", _twilio_sk),
    Case("twilio", f"TWILIO_API_KEY={_twilio_sk}", _twilio_sk),
    Case("twilio", f"TWILIO_AUTH_TOKEN={_twilio_auth}", _twilio_auth),
    Case("twilio", f"client = Client(account_sid, auth_token='{_twilio_auth}')", _twilio_auth),
    Case("digitalocean", f"DIGITALOCEAN_TOKEN={_dop}", _dop),
    Case("digitalocean", f"doctl auth init -t {_dop}", _dop),
    Case("digitalocean", f"oauth token {_doo}", _doo),
    Case("docker", f'{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{_docker_auth}"}}}}}}',
         _docker_auth),
    Case("docker", f'\t\t"ghcr.io": {{\n\t\t\t"auth": "{_docker_auth}"\n\t\t}}', _docker_auth),
    Case("docker", f"echo {_pw[0]} | docker login -u acme --password-stdin && "
         f"docker login -u acme -p {_pw[1]} ghcr.io", _pw[1]),
    Case("kubeconfig", f"users:\n- name: admin\n  user:\n    client-key-data: {_kube_key}",
         _kube_key[:40]),
    Case("kubeconfig", f"    token: {_jwt}", _jwt),
    Case("kubeconfig", f"client-key-data: {_kube_key}", _kube_key[:40]),
    Case("basic", f"Authorization: Basic {_basic}", _basic),
    Case("basic", f"curl --header 'authorization:basic {_basic}' https://x.acme.io", _basic),
    Case("basic", f'requests.get(url, headers={{"Authorization": "Basic {_basic}"}})', _basic),
    Case("basic", f"proxy-authorization: Basic {_basic}", _basic),
    Case("provider", f"SHOPIFY_ACCESS_TOKEN={_shpat}", _shpat),
    Case("provider", f"X-Shopify-Access-Token: {_shpat}", _shpat),
    Case("provider", f"VAULT_TOKEN={_hvs}", _hvs),
    Case("provider", f"vault login {_hvs}", _hvs),
    Case("provider", f"LINEAR_API_KEY={_lin}", _lin),
    Case("provider", f"postman key {_pmak}", _pmak),
    Case("provider", f"GROQ_API_KEY={_gsk}", _gsk),
    Case("provider", f"groq key {_gsk}", _gsk),
    Case("provider", f"pplx key {_pplx}", _pplx),
    Case("provider", f"REPLICATE_API_TOKEN={_r8}", _r8),
    Case("provider", f"doppler token {_dp}", _dp),
    Case("provider", f"# created: 2024\n{_age}", _age),
    Case("provider", f"supabase login --token {_sbp}", _sbp),
    Case("provider", f"grafana service account token {_glsa}", _glsa),
    Case("provider", f"databricks token {_dapi}", _dapi),
    Case("provider", f"SENTRY_AUTH_TOKEN={_sntryu}", _sntryu),
    Case("provider", f"new relic key {_nrak}", _nrak),
    Case("discord", f"discord answers 401 for {_discord3} - why does login fail?", _discord3),
    Case("discord", f'bot = commands.Bot(command_prefix="!")\nbot.run("{_discord3}")', _discord3),
    Case("discord", f"DISCORD_WEBHOOK=https://discord.com/api/webhooks/{_discord_hook}",
         _discord_hook[20:]),
    Case("discord", f"curl -H 'Content-Type: application/json' -d '{{}}' "
         f"https://discordapp.com/api/webhooks/{_discord_hook}", _discord_hook[20:]),
    Case("twilio", f"client = Client('AC{rnd(HEX, 32)}', '{_twilio_auth2}')", _twilio_auth2),
    Case("twilio", f"const client = require('twilio')(accountSid, '{_twilio_auth2}');",
         _twilio_auth2),
    Case("twilio", f'twilio_auth_token = "{_twilio_auth2}"', _twilio_auth2),
    Case("sentry", f'sentry_sdk.init(dsn="https://{_sentry_key}@o4504.ingest.sentry.io/45")',
         _sentry_key),
    Case("sentry", f"SENTRY_DSN=https://{_sentry_key}@o1.ingest.us.sentry.io/2", _sentry_key),
    Case("putty", _ppk, _ppk_private),
    Case("putty", _ppk.replace("\\n", "\n"), _ppk_private),
    Case("age", f"# public key: age1{rnd(LOWER + DIGITS, 58)}\n{_age2}", _age2),
    Case("gcp", f'{{"type": "service_account", "project_id": "acme", "private_key_id": '
         f'"{_gcp_key_id}", "client_email": "ci@acme.iam.gserviceaccount.com"}}', _gcp_key_id),
    Case("atlassian", f"JIRA_API_TOKEN={_atatt}", _atatt),
    Case("atlassian", f"curl -u me@acme.io:{_atatt} https://acme.atlassian.net/rest/api/3/myself",
         _atatt),
    Case("atlassian", f"my confluence token is {_jira}", _jira),
    Case("doppler", f"doppler configure set token {_doppler}", _doppler),
    Case("figma", f'fetch(url, {{headers: {{"X-Figma-Token": "{_figd}"}}}})', _figd),
    Case("figma", f"figma token {_figd}", _figd),
    Case("mailchimp", f"mailchimp.setConfig({{apiKey: '{_mailchimp}', server: 'us6'}})",
         _mailchimp),
    Case("mailchimp", f"MAILCHIMP_API_KEY={_mailchimp}", _mailchimp),
    Case("mailgun", f"curl -s --user 'api:{_mailgun}' https://api.mailgun.net/v3/x/messages",
         _mailgun),
    Case("mailgun", f"mailgun = Mailgun(api_key='{_mailgun}')", _mailgun),
    Case("notion", f"NOTION_TOKEN={_notion_old}", _notion_old),
    Case("notion", f"notion = Client(auth='{_notion_new}')", _notion_new),
    Case("notion", f"the integration secret is {_notion_old}", _notion_old),
    Case("terraform", f'credentials "app.terraform.io" {{\n  token = "{_tfc}"\n}}', _tfc),
    Case("terraform", f"TF_TOKEN_app_terraform_io={_tfc}", _tfc),
    Case("vercel", f"vercel --prod --token {_vercel}", _vercel),
    Case("vercel", f"my vercel token is {_vercel}", _vercel),
    Case("vercel", f"VERCEL_TOKEN={_vercel2}", _vercel2),
    Case("gitleaks", f"typeform token {_tfp}", _tfp),
    Case("gitleaks", f"SENDINBLUE_API_KEY={_xkeysib}", _xkeysib),
    Case("gitleaks", f"src login with {_sgp}", _sgp),
    Case("gitleaks", f"gem push with {_rubygems}", _rubygems),
    Case("gitleaks", f"pulumi login using {_pul}", _pul),
    Case("gitleaks", f"dynatrace {_dt}", _dt),
    Case("gitleaks", f"grafana key {_grafana}", _grafana),
    Case("gitleaks", f"OP_SERVICE_ACCOUNT_TOKEN={_ops}", _ops),
]

# --- look-alikes that must stay -------------------------------------------------------------

_sha = rnd(HEX, 40)
_uuid = uuid()

NEGATIVES: list[tuple[str, str]] = [
    ("placeholder", "export ANTHROPIC_API_KEY=sk-ant-..."),
    ("placeholder", "OPENAI_API_KEY=sk-proj-xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", 'GITHUB_TOKEN="<your-token>"'),
    ("placeholder", "DB_PASSWORD=${DB_PASSWORD}"),
    ("placeholder", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}"),
    ("placeholder", "machine api.github.com login USERNAME password TOKEN"),
    ("placeholder", "hostname:port:database:username:password"),
    ("placeholder", 'sshpass -p "$SSH_PASS" ssh u@h'),
    ("placeholder", "mysql -u root -p$MYSQL_ROOT_PASSWORD"),
    ("placeholder", "AccountKey=<storage-account-key>;EndpointSuffix=core.windows.net"),
    ("placeholder", "SENDGRID_API_KEY=SG." + "x" * 22 + "." + "x" * 43),
    ("placeholder", '"auth": "<base64 of user:password>"'),
    ("placeholder", "client-key-data: DATA+OMITTED"),
    ("placeholder", "Authorization: Basic <credentials>"),
    ("placeholder", "DIGITALOCEAN_TOKEN=dop_v1_your_token_here"),
    ("example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"),
    ("example", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("example", "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("example", "postgres://user:password@localhost:5432/mydb"),
    ("example", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("uuid", f"request id {_uuid} failed with 502"),
    ("uuid", f'{{"id": "{_uuid}", "type": "message"}}'),
    ("uuid", f"session {uuid()} resumed"),
    ("sha", f"commit {_sha}"),
    ("sha", f"git checkout {_sha[:12]} && git log -1"),
    ("sha", f"Merge: {_sha[:7]} {rnd(HEX, 7)}"),
    ("lockfile", f'"integrity": "sha512-{b64(64)}"'),
    ("lockfile", f"--hash=sha256:{rnd(HEX, 64)}"),
    ("lockfile", f'{{file = "x-1.0-py3-none-any.whl", hash = "sha256:{rnd(HEX, 64)}"}}'),
    ("lockfile", f"github.com/pkg/errors v0.9.1 h1:{b64(32)}"),
    ("lockfile", f"image: redis@sha256:{rnd(HEX, 64)}"),
    ("lockfile", f'checksum = "{rnd(HEX, 64)}"'),
    ("public", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rnd(B64, 43)} me@laptop"),
    ("public", f"-----BEGIN PUBLIC KEY-----\n{b64(48)}\n-----END PUBLIC KEY-----"),
    ("public", f"-----BEGIN CERTIFICATE-----\n{b64(48)}\n-----END CERTIFICATE-----"),
    ("public", f"    client-certificate-data: {b64(120)}"),
    ("public", f"    certificate-authority-data: {b64(120)}"),
    ("public", "pk_live_" + rnd(ALNUM, 24)),
    ("public", f"account sid AC{rnd(HEX, 32)}"),
    ("port", "docker run -p 8080:80 nginx && ssh -p 2222 me@host"),
    ("port", "mysql -h db -P 3306 -u root -p"),
    ("port", "mysql -u root -p shop < dump.sql"),
    ("port", "sshpass -f ~/.ssh/pass ssh u@h"),
    ("prose", "Reset your password, then log in to the machine again."),
    ("prose", "the machine learning model asks for a password on login"),
    ("prose", "We store the token hash, never the token itself."),
    ("prose", "The SG.Widget class renders the grid"),
    ("prose", "at 12:30:45 the job finished; 10:00:00:00 is midnight in frames"),
    ("prose", "basic auth: the Authorization header holds base64 of user:pass"),
    ("code", 'token = os.environ["DISCORD_TOKEN"]'),
    ("code", "client.run(os.getenv('DISCORD_TOKEN'))"),
    ("code", "password = getpass.getpass()"),
    ("code", 'auth = {"auth": auth_header, "identitytoken": None}'),
    ("code", "sig = hmac.new(key, msg, sha256).hexdigest()"),
    ("code", 'url = f"{base}?sig={signature}&se={expiry}"'),
    ("data", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4"),
    ("data", f"version: {rnd(DIGITS, 3)}.{rnd(DIGITS, 2)}.0"),
    ("discord", "see https://discord.com/developers/docs/resources/webhook for the format"),
    ("discord", "client.run(config.token)  # bot.run(os.environ['TOKEN'])"),
    ("twilio", "client = Client(account_sid, auth_token)"),
    ("sentry", "sentry_sdk.init(dsn=os.environ['SENTRY_DSN'], traces_sample_rate=1.0)"),
    ("sentry", f"https://github.com/getsentry/sentry/commit/{_sha}"),
    ("putty", "puttygen key.ppk -O private-openssh: Private-Lines: counts the key lines"),
    ("age", "age-keygen -o key.txt prints the public key, age1..."),
    ("gcp", '"private_key_id": "<key id>", "client_id": "1234567890"'),
    ("atlassian", "jira token rotation is described in the admin guide, section 4"),
    ("doppler", "doppler run -- npm start; tokens start with dp.st."),
    ("figma", "figd_ starts a Figma token; figma.com/file/abc/Design"),
    ("mailchimp", f"locale en-us12 and md5 {rnd(HEX, 32)}"),
    ("mailgun", "the monkey-patch and turnkey-solution keys"),
    ("notion", "secret_key_base = Rails.application.credentials.secret_key_base"),
    ("terraform", "terraform login app.terraform.io writes credentials.tfrc.json"),
    ("vercel", "vercel token = process.env.VERCEL_TOKEN_FOR_PREVIEWS"),
    ("gitleaks", f"see API-{UPPER[:26]} in the table; pat.{LOWER}.{LOWER[:24]}.{LOWER[:20]}"),
]
