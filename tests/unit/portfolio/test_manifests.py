"""Dependencies read from package manifests, as real projects write them, and from broken ones."""

import random

import pytest

from solograph.portfolio.manifests import (
    MAX_CHARS,
    Package,
    manifest_kind,
    normalize_name,
    parse_manifest,
)


def npm(name, spec, dev=False):
    return Package("npm", name, spec, dev)


def pip(name, spec, dev=False):
    return Package("pip", name, spec, dev)


def spm(name, spec):
    return Package("spm", name, spec, False)


def gradle(name, spec, dev=False):
    return Package("gradle", name, spec, dev)


def cargo(name, spec, dev=False):
    return Package("cargo", name, spec, dev)


def go(name, spec, dev=False):
    return Package("go", name, spec, dev)


def gem(name, spec, dev=False):
    return Package("gem", name, spec, dev)


def composer(name, spec, dev=False):
    return Package("composer", name, spec, dev)


def maven(name, spec, dev=False):
    return Package("maven", name, spec, dev)


NEXTJS_PACKAGE_JSON = """\
{
  "name": "acme-dashboard",
  "version": "0.1.0",
  "private": true,
  "scripts": {
    "dev": "next dev",
    "build": "next build",
    "start": "next start",
    "lint": "next lint"
  },
  "dependencies": {
    "@radix-ui/react-dialog": "^1.0.5",
    "@tanstack/react-query": "^5.17.9",
    "clsx": "^2.1.0",
    "next": "14.1.0",
    "react": "^18.2.0",
    "react-dom": "^18.2.0",
    "zod": "^3.22.4"
  },
  "peerDependencies": {
    "react": ">=18"
  },
  "optionalDependencies": {
    "sharp": "^0.33.2"
  },
  "devDependencies": {
    "@types/node": "^20",
    "@types/react": "^18",
    "eslint": "^8",
    "eslint-config-next": "14.1.0",
    "tailwindcss": "^3.3.0",
    "typescript": "^5",
    "zod": "^3.22.4"
  },
  "engines": {"node": ">=18.17"}
}
"""

FASTAPI_PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "acme-api"
version = "0.3.0"
requires-python = ">=3.11"
dependencies = [
    "fastapi>=0.110,<1",
    "uvicorn[standard] >= 0.27",
    "SQLAlchemy[asyncio]~=2.0",
    "pydantic_settings",
    "httpx (>=0.26)",
    "tomli>=2.0; python_version < '3.11'",
    "acme-shared @ git+https://github.com/acme/shared.git@v1.2",
]

[project.optional-dependencies]
postgres = ["asyncpg>=0.29"]
test = ["pytest>=8", "pytest-asyncio"]
docs = ["mkdocs-material"]

[dependency-groups]
dev = [
    {include-group = "lint"},
    "ipython",
]
lint = ["ruff==0.3.4", "mypy>=1.8"]

[tool.uv]
dev-dependencies = ["pre-commit>=3"]

[tool.ruff]
line-length = 100
"""

POETRY_PYPROJECT = """\
[tool.poetry]
name = "acme-bot"
version = "1.4.2"
description = "Telegram bot"
authors = ["Acme <dev@acme.io>"]

[tool.poetry.dependencies]
python = "^3.10"
aiogram = "^3.3.0"
Redis = {version = "^5.0", extras = ["hiredis"]}
acme_core = {path = "../core", develop = true}
yt-dlp = {git = "https://github.com/yt-dlp/yt-dlp.git", branch = "master"}
numpy = [
    {version = "<1.25", python = "<3.9"},
    {version = "^1.26", python = ">=3.9"},
]
structlog = "*"

[tool.poetry.group.dev.dependencies]
pytest = "^7.4"
black = "^23.12"

[tool.poetry.group.docs.dependencies]
sphinx = "^7"

[tool.poetry.dev-dependencies]
mypy = "^1.8"

[build-system]
requires = ["poetry-core"]
build-backend = "poetry.core.masonry.api"
"""

REQUIREMENTS_TXT = """\
# Production requirements, compiled by hand.
--index-url https://pypi.org/simple
--extra-index-url https://download.pytorch.org/whl/cpu
-r requirements-base.txt
-c constraints.txt

Django==4.2.9  # LTS
djangorestframework>=3.14,<4
psycopg2-binary==2.9.9 ; sys_platform != "win32"
celery[redis]>=5.3
Pillow \\
    >=10.2.0
requests==2.31.0 \\
    --hash=sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f
-e git+https://github.com/acme/django-tenants.git@3.5.0#egg=django_tenants
-e .
git+https://github.com/acme/pdfgen.git@main#egg=acme-pdfgen
https://example.com/wheels/private_lib-1.0-py3-none-any.whl
./vendor/localpkg
torch==2.2.0+cpu
"""

PACKAGE_SWIFT = """\
// swift-tools-version: 5.9
import PackageDescription

let package = Package(
    name: "AcmeKit",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "AcmeKit", targets: ["AcmeKit"]),
        .executable(name: "acme", targets: ["AcmeCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.2.0"),
        .package(
            url: "https://github.com/Alamofire/Alamofire.git",
            .upToNextMajor(from: "5.8.0")
        ),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", exact: "1.15.1"),
        .package(url: "https://github.com/realm/SwiftLint.git", branch: "main"),
        .package(url: "https://github.com/onevcat/Kingfisher.git", "7.0.0"..<"8.0.0"),
        .package(name: "Firebase", url: "https://github.com/firebase/firebase-ios-sdk.git",
                 revision: "6e3a0a9c8b1f"),
        // .package(url: "https://github.com/ReactiveX/RxSwift.git", from: "6.0.0"),
        /* .package(url: "https://github.com/old/Gone.git", from: "0.1.0"), */
        .package(path: "../AcmeCore"),
    ],
    targets: [
        .target(
            name: "AcmeKit",
            dependencies: [
                .product(name: "Alamofire", package: "Alamofire"),
                .product(name: "Kingfisher", package: "Kingfisher"),
                "AcmeCore",
            ]
        ),
        .executableTarget(
            name: "AcmeCLI",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "AcmeKitTests", dependencies: ["AcmeKit"]),
    ]
)
"""

ANDROID_BUILD_GRADLE_KTS = """\
plugins {
    alias(libs.plugins.android.application)
    alias(libs.plugins.kotlin.android)
    id("com.google.dagger.hilt.android")
    kotlin("kapt")
}

android {
    namespace = "io.acme.app"
    compileSdk = 34
    defaultConfig {
        minSdk = 26
        targetSdk = 34
        testInstrumentationRunner = "androidx.test.runner.AndroidJUnitRunner"
    }
}

dependencies {
    implementation(project(":core:data"))
    implementation(libs.androidx.core.ktx)
    implementation(libs.androidx.lifecycle.runtime.ktx)
    implementation(platform(libs.androidx.compose.bom))
    implementation(platform("com.google.firebase:firebase-bom:32.7.1"))
    implementation("com.google.firebase:firebase-analytics-ktx")
    implementation("com.squareup.retrofit2:retrofit:2.9.0") {
        exclude(group = "com.squareup.okhttp3", module = "okhttp")
    }
    implementation("io.coil-kt:coil-compose:${coilVersion}")
    api(kotlin("stdlib-jdk8"))
    kapt("com.google.dagger:hilt-compiler:2.50")
    ksp(libs.room.compiler)
    coreLibraryDesugaring("com.android.tools:desugar_jdk_libs:2.0.4")
    // implementation("com.jakewharton.timber:timber:5.0.1")
    /*
    implementation("com.old:removed:1.0")
    */
    testImplementation("junit:junit:4.13.2")
    testImplementation(libs.kotlinx.coroutines.test)
    androidTestImplementation(libs.androidx.test.ext.junit)
    androidTestImplementation(platform(libs.androidx.compose.bom))
    debugImplementation("com.squareup.leakcanary:leakcanary-android:2.13")
    kaptTest("com.google.dagger:hilt-compiler:2.50")
}
"""

GROOVY_BUILD_GRADLE = """\
buildscript {
    ext.kotlin_version = '1.9.22'
    repositories { google(); mavenCentral() }
    dependencies {
        classpath 'com.android.tools.build:gradle:8.2.2'
    }
}

apply plugin: 'com.android.library'

dependencies {
    implementation fileTree(dir: 'libs', include: ['*.jar'])
    implementation "org.jetbrains.kotlin:kotlin-stdlib:$kotlin_version"
    implementation 'androidx.appcompat:appcompat:1.6.1'
    implementation group: 'com.google.code.gson', name: 'gson', version: '2.10.1'
    api project(':shared')
    compileOnly 'org.projectlombok:lombok:1.18.30'
    annotationProcessor 'org.projectlombok:lombok:1.18.30'
    runtimeOnly 'org.postgresql:postgresql:42.7.1'
    implementation('com.github.bumptech.glide:glide:4.16.0') {
        exclude group: 'com.android.support'
    }
    implementation 'com.facebook.react:react-native:+' // From node_modules
    testImplementation 'junit:junit:4.13.2', 'org.mockito:mockito-core:5.8.0'
    testRuntimeOnly 'org.junit.platform:junit-platform-launcher'
    androidTestImplementation 'androidx.test.espresso:espresso-core:3.5.1@aar'
}
"""

WORKSPACE_CARGO_TOML = """\
[workspace]
members = ["crates/*"]
resolver = "2"

[workspace.dependencies]
serde = { version = "1.0", features = ["derive"] }
tokio = { version = "1.36", features = ["full"] }

[package]
name = "acme-cli"
version = "0.4.0"
edition = "2021"

[dependencies]
serde = { workspace = true }
anyhow = "1.0.79"
clap = { version = "4.5", features = ["derive"] }
acme-core = { path = "crates/core", version = "0.4.0" }
rand_legacy = { package = "rand", version = "0.7" }
tree-sitter = { git = "https://github.com/tree-sitter/tree-sitter", rev = "a1b2c3" }
tracing = { version = "0.1", optional = true }

[dev-dependencies]
tokio = { workspace = true, features = ["test-util"] }
insta = "1.34"

[build-dependencies]
cc = "1.0"

[target.'cfg(windows)'.dependencies]
windows-sys = { version = "0.52", features = ["Win32_Foundation"] }

[target.'cfg(unix)'.dev-dependencies]
nix = "0.27"

[features]
default = ["tracing"]
"""

SETUP_CFG = """\
[metadata]
name = acme-legacy

[options]
packages = find:
install_requires =
    click>=8.0
    PyYAML>=5.4  # config files
    importlib-metadata; python_version<"3.8"
tests_require =
    pytest

[options.extras_require]
dev =
    tox
s3 =
    boto3>=1.26
"""

GOOD_CASES = {
    "nextjs": ("package.json", NEXTJS_PACKAGE_JSON, [
        npm("@radix-ui/react-dialog", "^1.0.5"),
        npm("@tanstack/react-query", "^5.17.9"),
        npm("clsx", "^2.1.0"),
        npm("next", "14.1.0"),
        npm("react", "^18.2.0"),
        npm("react-dom", "^18.2.0"),
        npm("zod", "^3.22.4"),
        npm("sharp", "^0.33.2"),
        npm("@types/node", "^20", dev=True),
        npm("@types/react", "^18", dev=True),
        npm("eslint", "^8", dev=True),
        npm("eslint-config-next", "14.1.0", dev=True),
        npm("tailwindcss", "^3.3.0", dev=True),
        npm("typescript", "^5", dev=True),
    ]),
    "fastapi-pep621": ("pyproject.toml", FASTAPI_PYPROJECT, [
        pip("fastapi", ">=0.110,<1"),
        pip("uvicorn", ">=0.27"),
        pip("sqlalchemy", "~=2.0"),
        pip("pydantic-settings", ""),
        pip("httpx", ">=0.26"),
        pip("tomli", ">=2.0"),
        pip("acme-shared", "url:git+https://github.com/acme/shared.git@v1.2"),
        pip("asyncpg", ">=0.29"),
        pip("pytest", ">=8", dev=True),
        pip("pytest-asyncio", "", dev=True),
        pip("mkdocs-material", "", dev=True),
        pip("ipython", "", dev=True),
        pip("ruff", "==0.3.4", dev=True),
        pip("mypy", ">=1.8", dev=True),
        pip("pre-commit", ">=3", dev=True),
    ]),
    "poetry": ("pyproject.toml", POETRY_PYPROJECT, [
        pip("aiogram", "^3.3.0"),
        pip("redis", "^5.0"),
        pip("acme-core", "path:../core"),
        pip("yt-dlp", "git:https://github.com/yt-dlp/yt-dlp.git"),
        pip("numpy", "<1.25"),
        pip("structlog", "*"),
        pip("mypy", "^1.8", dev=True),
        pip("pytest", "^7.4", dev=True),
        pip("black", "^23.12", dev=True),
        pip("sphinx", "^7", dev=True),
    ]),
    "requirements": ("requirements.txt", REQUIREMENTS_TXT, [
        pip("django", "==4.2.9"),
        pip("djangorestframework", ">=3.14,<4"),
        pip("psycopg2-binary", "==2.9.9"),
        pip("celery", ">=5.3"),
        pip("pillow", ">=10.2.0"),
        pip("requests", "==2.31.0"),
        pip("django-tenants", "git:https://github.com/acme/django-tenants.git@3.5.0"),
        pip("acme-pdfgen", "git:https://github.com/acme/pdfgen.git@main"),
        pip("torch", "==2.2.0+cpu"),
    ]),
    "requirements-dev": ("requirements-dev.txt", "pytest>=8\nruff\n", [
        pip("pytest", ">=8", dev=True),
        pip("ruff", "", dev=True),
    ]),
    "dev-requirements": ("dev-requirements.txt", "-r requirements.txt\nfactory_boy\n", [
        pip("factory-boy", "", dev=True),
    ]),
    "setup.cfg": ("setup.cfg", SETUP_CFG, [
        pip("click", ">=8.0"),
        pip("pyyaml", ">=5.4"),
        pip("importlib-metadata", ""),
        pip("pytest", "", dev=True),
        pip("tox", "", dev=True),
        pip("boto3", ">=1.26"),
    ]),
    "swift": ("Package.swift", PACKAGE_SWIFT, [
        spm("swift-argument-parser", "from: 1.2.0"),
        spm("Alamofire", ".upToNextMajor(from: 5.8.0)"),
        spm("swift-snapshot-testing", "exact: 1.15.1"),
        spm("SwiftLint", "branch: main"),
        spm("Kingfisher", "7.0.0..<8.0.0"),
        spm("Firebase", "revision: 6e3a0a9c8b1f"),
        spm("AcmeCore", "path:../AcmeCore"),
    ]),
    "android-kts": ("build.gradle.kts", ANDROID_BUILD_GRADLE_KTS, [
        gradle(":core:data", "project"),
        gradle("libs.androidx.core.ktx", "catalog"),
        gradle("libs.androidx.lifecycle.runtime.ktx", "catalog"),
        gradle("libs.androidx.compose.bom", "catalog"),
        gradle("com.google.firebase:firebase-bom", "32.7.1"),
        gradle("com.google.firebase:firebase-analytics-ktx", ""),
        gradle("com.squareup.retrofit2:retrofit", "2.9.0"),
        gradle("io.coil-kt:coil-compose", "${coilVersion}"),
        gradle("org.jetbrains.kotlin:kotlin-stdlib-jdk8", ""),
        gradle("com.google.dagger:hilt-compiler", "2.50"),
        gradle("libs.room.compiler", "catalog"),
        gradle("com.android.tools:desugar_jdk_libs", "2.0.4"),
        gradle("junit:junit", "4.13.2", dev=True),
        gradle("libs.kotlinx.coroutines.test", "catalog", dev=True),
        gradle("libs.androidx.test.ext.junit", "catalog", dev=True),
        gradle("com.squareup.leakcanary:leakcanary-android", "2.13", dev=True),
    ]),
    "groovy": ("build.gradle", GROOVY_BUILD_GRADLE, [
        gradle("com.android.tools.build:gradle", "8.2.2", dev=True),
        gradle("org.jetbrains.kotlin:kotlin-stdlib", "$kotlin_version"),
        gradle("androidx.appcompat:appcompat", "1.6.1"),
        gradle("com.google.code.gson:gson", "2.10.1"),
        gradle(":shared", "project"),
        gradle("org.projectlombok:lombok", "1.18.30"),
        gradle("org.postgresql:postgresql", "42.7.1"),
        gradle("com.github.bumptech.glide:glide", "4.16.0"),
        gradle("com.facebook.react:react-native", "+"),
        gradle("junit:junit", "4.13.2", dev=True),
        gradle("org.mockito:mockito-core", "5.8.0", dev=True),
        gradle("org.junit.platform:junit-platform-launcher", "", dev=True),
        gradle("androidx.test.espresso:espresso-core", "3.5.1", dev=True),
    ]),
    "cargo-workspace": ("Cargo.toml", WORKSPACE_CARGO_TOML, [
        cargo("serde", "1.0"),
        cargo("tokio", "1.36"),
        cargo("anyhow", "1.0.79"),
        cargo("clap", "4.5"),
        cargo("acme-core", "path:crates/core"),
        cargo("rand", "0.7"),
        cargo("tree-sitter", "git:https://github.com/tree-sitter/tree-sitter"),
        cargo("tracing", "0.1"),
        cargo("insta", "1.34", dev=True),
        cargo("cc", "1.0", dev=True),
        cargo("windows-sys", "0.52"),
        cargo("nix", "0.27", dev=True),
    ]),
    "cargo-member": ("Cargo.toml", """\
[package]
name = "acme-core"

[dependencies]
serde.workspace = true
thiserror = "1"

[dev-dependencies]
proptest = { version = "1.4" }
""", [cargo("serde", "workspace"), cargo("thiserror", "1"), cargo("proptest", "1.4", dev=True)]),
    "go-mod": ("go.mod", """\
module github.com/acme/api

go 1.22.0

require (
\tgithub.com/go-chi/chi/v5 v5.0.12
\tgithub.com/jackc/pgx/v5 v5.5.5
\tgolang.org/x/crypto v0.21.0 // indirect
)

require github.com/stretchr/testify v1.9.0

replace github.com/acme/shared => ../shared

tool golang.org/x/tools/cmd/stringer
""", [go("github.com/go-chi/chi/v5", "v5.0.12"), go("github.com/jackc/pgx/v5", "v5.5.5"),
      go("github.com/stretchr/testify", "v1.9.0"),
      go("golang.org/x/crypto", "v0.21.0 indirect"),
      go("golang.org/x/tools/cmd/stringer", "", dev=True)]),
    "gemfile-rails": ("Gemfile", """\
source "https://rubygems.org"
ruby "3.3.0"

gem "rails", "~> 7.1.3"
gem "pg", "~> 1.1"
gem 'puma', '>= 5.0' # the web server
gem "bootsnap", require: false
gem "acme_ui", path: "engines/acme_ui"
gem "sidekiq", git: "https://github.com/sidekiq/sidekiq"
gem "rubocop", group: :development

group :development, :test do
  gem "debug", platforms: %i[ mri windows ]
  gem "rspec-rails", "~> 6.1"
end

group :production do
  gem "lograge"
end
""", [gem("rails", "~> 7.1.3"), gem("pg", "~> 1.1"), gem("puma", ">= 5.0"), gem("bootsnap", ""),
      gem("acme_ui", "path:engines/acme_ui"),
      gem("sidekiq", "git:https://github.com/sidekiq/sidekiq"),
      gem("rubocop", "", dev=True), gem("debug", "", dev=True),
      gem("rspec-rails", "~> 6.1", dev=True), gem("lograge", "")]),
    "gemspec": ("thor.gemspec", """\
Gem::Specification.new do |spec|
  spec.name = "thor"
  spec.add_dependency "rake", ">= 12.3", "< 14"
  spec.add_runtime_dependency("zeitwerk", "~> 2.6")
  spec.add_development_dependency "bundler", ">= 1.0"
end
""", [gem("rake", ">= 12.3, < 14"), gem("zeitwerk", "~> 2.6"), gem("bundler", ">= 1.0", dev=True)]),
    "composer-laravel": ("composer.json", """\
{
    "name": "laravel/laravel",
    "require": {
        "php": "^8.2",
        "ext-mbstring": "*",
        "laravel/framework": "^11.0",
        "guzzlehttp/guzzle": "^7.2"
    },
    "require-dev": {
        "phpunit/phpunit": "^11.0"
    }
}
""", [composer("laravel/framework", "^11.0"), composer("guzzlehttp/guzzle", "^7.2"),
      composer("phpunit/phpunit", "^11.0", dev=True)]),
    "pom-spring": ("pom.xml", """\
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <modelVersion>4.0.0</modelVersion>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>com.fasterxml.jackson</groupId>
        <artifactId>jackson-bom</artifactId>
        <version>2.17.0</version>
      </dependency>
    </dependencies>
  </dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId>
    </dependency>
    <dependency>
      <groupId>org.postgresql</groupId>
      <artifactId>postgresql</artifactId>
      <version>${postgres.version}</version>
    </dependency>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <artifactId>maven-surefire-plugin</artifactId>
        <dependencies>
          <dependency><groupId>x</groupId><artifactId>plugin-only</artifactId></dependency>
        </dependencies>
      </plugin>
    </plugins>
  </build>
</project>
""", [maven("org.springframework.boot:spring-boot-starter-web", ""),
      maven("org.postgresql:postgresql", "${postgres.version}"),
      maven("org.junit.jupiter:junit-jupiter", "", dev=True)]),
}


@pytest.mark.parametrize(("filename", "text", "expected"), GOOD_CASES.values(), ids=GOOD_CASES)
def test_realistic_manifests(filename, text, expected):
    assert parse_manifest(filename, text) == (expected, None)


@pytest.mark.parametrize(("filename", "kind"), [
    ("package.json", "npm"),
    ("pyproject.toml", "pip"),
    ("setup.cfg", "pip"),
    ("requirements.txt", "pip"),
    ("requirements-dev.txt", "pip"),
    ("dev-requirements.txt", "pip"),
    ("requirements_test.in", "pip"),
    ("requirements/base.txt", "pip"),
    ("Package.swift", "spm"),
    ("build.gradle", "gradle"),
    ("build.gradle.kts", "gradle"),
    ("Cargo.toml", "cargo"),
    ("go.mod", "go"),
    ("Gemfile", "gem"),
    ("lib/acme.gemspec", "gem"),
    ("composer.json", "composer"),
    ("pom.xml", "maven"),
    ("go.sum", None),
    ("Gemfile.lock", None),
    ("composer.lock", None),
    ("package-lock.json", None),
    ("Cargo.lock", None),
    ("settings.gradle.kts", None),
    ("notes.txt", None),
    ("README.md", None),
    ("", None),
])
def test_manifest_kind(filename, kind):
    assert manifest_kind(filename) == kind


@pytest.mark.parametrize(("manager", "raw", "normalized"), [
    ("pip", "Flask_SQLAlchemy", "flask-sqlalchemy"),
    ("pip", "zope.interface", "zope-interface"),
    ("pip", "a__-.b", "a-b"),
    ("npm", "@Scope/Pkg", "@Scope/Pkg"),
    ("gradle", "androidx.core:core-ktx", "androidx.core:core-ktx"),
])
def test_normalize_name(manager, raw, normalized):
    assert normalize_name(manager, raw) == normalized


@pytest.mark.parametrize(("filename", "dev"), [
    ("requirements.txt", False),
    ("requirements-prod.txt", False),
    ("requirements-test.txt", True),
    ("requirements_lint.txt", True),
    ("requirements/dev.txt", True),
    ("requirements/base.txt", False),
])
def test_requirements_dev_flag_comes_from_the_file_name(filename, dev):
    assert parse_manifest(filename, "attrs\n") == ([pip("attrs", "", dev)], None)


def test_a_runtime_entry_wins_over_a_dev_entry_whatever_the_order():
    text = '{"devDependencies": {"react": "^18.2.0"}, "dependencies": {"react": "^18.3.0"}}'
    assert parse_manifest("package.json", text) == ([npm("react", "^18.3.0")], None)


BAD_CASES = {
    "json-syntax": (
        "package.json",
        '{\n  "dependencies": {"react": "^18.2.0", "next": "14.1.0"},\n'
        '  "devDependencies": {"eslint": "^8",}\n  "scripts": }',
        [npm("react", "^18.2.0"), npm("next", "14.1.0"), npm("eslint", "^8", dev=True)],
        "invalid JSON"),
    "json-truncated": (
        "package.json", '{"dependencies": {"react": "^18.2.0", "vue": "^3',
        [npm("react", "^18.2.0")], "invalid JSON"),
    "json-not-object": ("package.json", '["react"]', [], "expected a JSON object"),
    "json-wrong-types": (
        "package.json",
        '{"dependencies": "oops", "devDependencies": {"jest": 29, "vitest": "^1"}}',
        [npm("vitest", "^1", dev=True)], "dependencies: expected mapping, got string"),
    "json-empty": ("package.json", "", [], "empty file"),
    "json-whitespace": ("package.json", " \n\t\n", [], "empty file"),
    "json-binary": ("package.json", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", [], "binary"),
    "toml-bad-key": (
        "pyproject.toml",
        '[project]\nname = acme\ndependencies = ["fastapi>=0.110"]\n\n'
        '[tool.black]\nline-length = = 100\n',
        [pip("fastapi", ">=0.110")], "invalid TOML"),
    "toml-bad-header": (
        "pyproject.toml",
        '[project\ndependencies = ["lost"]\n[dependency-groups]\ndev = ["pytest"]\n',
        [pip("pytest", "", dev=True)], "invalid TOML"),
    "toml-wrong-types": (
        "pyproject.toml",
        '[project]\ndependencies = "fastapi"\n'
        '[project.optional-dependencies]\ntest = "pytest"\nall = ["rich", 3, "not a req !"]\n'
        '[dependency-groups]\ndev = [{include-group = "x"}, {other = 1}, "ipdb"]\n',
        [pip("rich", ""), pip("ipdb", "", dev=True)],
        "project.dependencies: expected list, got string"),
    "toml-project-not-table": (
        "pyproject.toml", 'project = "acme"\n[tool.uv]\ndev-dependencies = ["ruff"]\n',
        [pip("ruff", "", dev=True)], "project: expected mapping, got string"),
    "poetry-wrong-types": (
        "pyproject.toml",
        '[tool.poetry.dependencies]\npython = "^3.11"\nrequests = 2\nhttpx = "^0.27"\n'
        '[tool.poetry.group]\ndev = "pytest"\n',
        [pip("httpx", "^0.27")], "tool.poetry.dependencies.requests: unexpected int"),
    "cargo-wrong-types": (
        "Cargo.toml",
        'dependencies = "serde"\n[dev-dependencies]\ninsta = 1\nproptest = "1"\n'
        "[target]\nwasm = 3\n",
        [cargo("proptest", "1", dev=True)], "dependencies: expected mapping, got string"),
    "cargo-broken-toml": (
        "Cargo.toml",
        '[package]\nname = "x"\nversion = 0.1.0\n[dependencies]\nserde = "1"\nregex = \n',
        [cargo("serde", "1")], "invalid TOML"),
    "cargo-empty": ("Cargo.toml", "", [], "empty file"),
    "requirements-junk": (
        "requirements.txt", "flask>=3\nthis is not a requirement\nrequests\n",
        [pip("flask", ">=3"), pip("requests", "")], "line 2: cannot parse requirement"),
    "requirements-binary": ("requirements.txt", "\x00\x01\x02\xff\xfe", [], "binary"),
    "setup-cfg-no-header": ("setup.cfg", "install_requires = click\n", [], "invalid setup.cfg"),
    "swift-binary": ("Package.swift", "\x00" * 64, [], "binary"),
    "gradle-empty": ("build.gradle.kts", "\n\n", [], "empty file"),
    "unknown-file": ("Gemfile.lock", "GEM\n  specs:\n    rails (7.1.3)\n", [],
                     "not a known manifest"),
}


@pytest.mark.parametrize(("filename", "text", "expected", "message"), BAD_CASES.values(),
                         ids=BAD_CASES)
def test_bad_input_keeps_what_can_be_read_and_says_why(filename, text, expected, message):
    packages, error = parse_manifest(filename, text)
    assert packages == expected
    assert error is not None and message in error


def test_bytes_are_decoded_and_invalid_utf8_reported():
    assert parse_manifest("requirements.txt", b"flask\n") == ([pip("flask", "")], None)
    packages, error = parse_manifest("requirements.txt", b"flask\n# caf\xe9\n")
    assert packages == [pip("flask", "")]
    assert error == "invalid UTF-8, undecodable bytes replaced"


def test_a_byte_order_mark_is_ignored():
    assert parse_manifest("package.json", '\ufeff{"dependencies": {"a": "1"}}') == (
        [npm("a", "1")], None)


def test_huge_file_is_read_up_to_the_limit():
    comment = "# " + "x" * 998 + "\n"
    text = "requests==2.31.0\n" + comment * (MAX_CHARS // len(comment)) + "flask\n"
    packages, error = parse_manifest("requirements.txt", text)
    assert packages == [pip("requests", "==2.31.0")]
    assert error is not None and "file too large" in error


def test_deep_nesting_does_not_blow_the_stack():
    for filename, text in [("package.json", "[" * 50_000), ("Cargo.toml", "a = " + "[" * 50_000)]:
        packages, error = parse_manifest(filename, text)
        assert packages == [] and error


def test_many_problems_are_summarized():
    text = "\n".join(f"not valid {i}" for i in range(12))
    _, error = parse_manifest("requirements.txt", text)
    assert error is not None and error.endswith("; and 7 more problems")


FUZZ_SOURCES = [(name, text) for name, text, _ in GOOD_CASES.values()]


@pytest.mark.parametrize(("filename", "text"), FUZZ_SOURCES,
                         ids=[f"{i}-{n}" for i, (n, _) in enumerate(FUZZ_SOURCES)])
def test_mangled_manifests_never_raise(filename, text):
    rng = random.Random(filename + str(len(text)))
    for _ in range(15):
        chars = list(text)
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(chars) or 1)
            op = rng.random()
            if op < 0.4:
                del chars[i:i + rng.randint(1, 20)]
            elif op < 0.8 or not chars:
                chars.insert(i, rng.choice('{}[]()"\',:=#\\\n /*@'))
            else:
                chars[i] = chr(rng.randint(1, 0x2FFF))
        packages, error = parse_manifest(filename, "".join(chars))
        assert isinstance(packages, list) and (error is None or isinstance(error, str))
        assert all(isinstance(p, Package) and p.name for p in packages)
