"""Listeners' security: TLS (``ssl_factory``), SASL PLAIN and SCRAM (``plain``, ``scram``),
per-connection authentication (``authenticator``), SCRAM credential storage
(``credential_store``), and what this broker presents to other brokers (``client``).
``manager.BrokerSecurity`` assembles them from the broker's config."""
