package io.leaderelection.aot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import javax.tools.DiagnosticCollector;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.InputStreamSource;
import org.springframework.javapoet.ClassName;

/**
 * A context processed ahead of time, as {@code spring-boot:process-aot} processes an
 * application, whose generated code is compiled and loaded so that contexts can be started from it
 * alone, as an application started with {@code -Dspring.aot.enabled=true} is.
 * <p>
 * spring-core-test's {@code TestCompiler} does this in Spring's own tests; it is not among this
 * build's dependencies, so the JDK's compiler compiles here. The generated code calls
 * package-private members of the classes it was generated for, so each generated class is
 * defined beside them. The module's own classes (those of the configuration's and of an anchor
 * class's locations) are defined again, with the code generated for them, in a class loader of
 * this processing's own: there CGLIB finds the proxy classes generated at build time under the
 * names it gives them at run time, as in a fresh JVM, where it would otherwise name them after
 * those that processing already loaded. The code generated for Spring Boot's own classes is
 * defined in their class loader, the test's, for the rest of the JVM's life; Spring, the core
 * and the test's libraries all come from there, so the test holds the context's beans by the
 * types they share.
 */
final class AotProcessedContext {

	private static final String AOT_ENABLED = "spring.aot.enabled";

	private final String initializer;

	private final RuntimeHints hints;

	private final URL[] moduleLocations;

	private final ClassLoader testClassLoader;

	/** The code generated for the module's classes, defined with them for every context. */
	private final Map<String, byte[]> generatedForModule;

	private final Set<Class<?>> definedInTestClassLoader;

	private final Set<Class<?>> definedForContexts = ConcurrentHashMap.newKeySet();

	private AotProcessedContext(String initializer, RuntimeHints hints, URL[] moduleLocations,
			ClassLoader testClassLoader, Map<String, byte[]> generatedForModule,
			Set<Class<?>> definedInTestClassLoader) {
		this.initializer = initializer;
		this.hints = hints;
		this.moduleLocations = moduleLocations;
		this.testClassLoader = testClassLoader;
		this.generatedForModule = generatedForModule;
		this.definedInTestClassLoader = definedInTestClassLoader;
	}

	/**
	 * Processes the configuration ahead of time, compiles the generated sources and loads every
	 * generated class.
	 * @param configuration the user configuration, importing what it needs
	 * @param anchor a main class of the module, whose classes are defined again with the code
	 * generated for them
	 * @param properties the environment's properties at build time, where conditions read them
	 * @return the processed context, ready to start
	 */
	static AotProcessedContext process(Class<?> configuration, Class<?> anchor, String... properties) {
		InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
		DefaultGenerationContext generation = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(configuration)), files);
		ClassName initializer;
		try (AnnotationConfigApplicationContext build = new AnnotationConfigApplicationContext()) {
			build.register(configuration);
			TestPropertyValues.of(properties).applyTo(build);
			initializer = new ApplicationContextAotGenerator().processAheadOfTime(build, generation);
			generation.writeGeneratedContent();
		}
		Map<String, byte[]> generated = new TreeMap<>(compile(sources(files)));
		files.getGeneratedFiles(Kind.CLASS).forEach((path, content) -> generated.put(binaryName(path), bytes(content)));
		ClassLoader testClassLoader = configuration.getClassLoader();
		List<URL> moduleLocations = List.of(location(anchor), location(configuration));
		Map<String, byte[]> generatedForModule = new LinkedHashMap<>();
		Set<Class<?>> definedInTestClassLoader = new HashSet<>();
		generated.forEach((name, bytes) -> {
			Class<?> host = host(name, testClassLoader);
			if (moduleLocations.contains(location(host))) {
				generatedForModule.put(name, bytes);
			}
			else {
				definedInTestClassLoader.add(defineBeside(host, name, bytes));
			}
		});
		return new AotProcessedContext(initializer.reflectionName(), generation.getRuntimeHints(),
				moduleLocations.toArray(URL[]::new), testClassLoader, generatedForModule, definedInTestClassLoader);
	}

	/** Every runtime hint that processing registered, as a native image would be given them. */
	RuntimeHints hints() {
		return this.hints;
	}

	/** The binary names of the generated classes, compiled from sources or generated as classes. */
	Set<String> generatedClassNames() {
		Set<String> names = new TreeSet<>(this.generatedForModule.keySet());
		this.definedInTestClassLoader.forEach((type) -> names.add(type.getName()));
		return names;
	}

	/** Whether the class is one that processing generated, loaded as it was generated. */
	boolean isGenerated(Class<?> type) {
		return this.definedForContexts.contains(type) || this.definedInTestClassLoader.contains(type);
	}

	/**
	 * Starts a context from the generated code alone, with {@code spring.aot.enabled} set, hands
	 * it to the test, then closes it. Each context has a class loader of its own, as each
	 * application has its JVM: CGLIB names the proxies it makes in a class loader in sequence.
	 * @param properties the environment's properties at run time
	 * @param test what to do with the started context
	 */
	void run(String[] properties, Consumer<GenericApplicationContext> test) {
		Thread thread = Thread.currentThread();
		ClassLoader previousClassLoader = thread.getContextClassLoader();
		String aotEnabled = System.getProperty(AOT_ENABLED);
		GeneratedCodeClassLoader classLoader = new GeneratedCodeClassLoader(this.moduleLocations,
				this.testClassLoader, this.generatedForModule, this.definedForContexts);
		thread.setContextClassLoader(classLoader);
		System.setProperty(AOT_ENABLED, "true");
		try (classLoader; GenericApplicationContext context = new GenericApplicationContext()) {
			context.setClassLoader(classLoader);
			TestPropertyValues.of(properties).applyTo(context);
			initializer(classLoader).initialize(context);
			context.refresh();
			test.accept(context);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		finally {
			thread.setContextClassLoader(previousClassLoader);
			if (aotEnabled != null) {
				System.setProperty(AOT_ENABLED, aotEnabled);
			}
			else {
				System.clearProperty(AOT_ENABLED);
			}
		}
	}

	@SuppressWarnings("unchecked")
	private ApplicationContextInitializer<GenericApplicationContext> initializer(ClassLoader classLoader) {
		try {
			return (ApplicationContextInitializer<GenericApplicationContext>) classLoader.loadClass(this.initializer)
				.getDeclaredConstructor()
				.newInstance();
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("The generated initializer " + this.initializer + " cannot be created",
					ex);
		}
	}

	private static Map<String, String> sources(InMemoryGeneratedFiles files) {
		Map<String, String> sources = new LinkedHashMap<>();
		files.getGeneratedFiles(Kind.SOURCE)
			.forEach((path, content) -> sources.put(path, new String(bytes(content), StandardCharsets.UTF_8)));
		return sources;
	}

	/** Compiles the sources against the test's class path; answers each class's bytes by binary name. */
	private static Map<String, byte[]> compile(Map<String, String> sources) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		if (compiler == null) {
			throw new IllegalStateException("The generated code is compiled by the JDK's compiler: run the tests on a JDK");
		}
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		Map<String, ByteArrayOutputStream> output = new LinkedHashMap<>();
		List<JavaFileObject> units = new ArrayList<>();
		sources.forEach((path, source) -> units
			.add(new SimpleJavaFileObject(URI.create("string:///" + path), JavaFileObject.Kind.SOURCE) {

				@Override
				public CharSequence getCharContent(boolean ignoreEncodingErrors) {
					return source;
				}

			}));
		StandardJavaFileManager standard = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8);
		JavaFileManager inMemory = new ForwardingJavaFileManager<>(standard) {

			@Override
			public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
					FileObject sibling) {
				return new SimpleJavaFileObject(URI.create("memory:///" + className.replace('.', '/') + kind.extension),
						kind) {

					@Override
					public OutputStream openOutputStream() {
						return output.computeIfAbsent(className, (name) -> new ByteArrayOutputStream());
					}

				};
			}

		};
		// -proc:none: the annotation processors on the class path have nothing to do here
		List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-proc:none");
		if (!compiler.getTask(null, inMemory, diagnostics, options, null, units).call()) {
			throw new IllegalStateException("The generated code does not compile:\n" + diagnostics.getDiagnostics()
				.stream()
				.map(Object::toString)
				.collect(Collectors.joining("\n")));
		}
		Map<String, byte[]> classes = new LinkedHashMap<>();
		output.forEach((name, bytes) -> classes.put(name, bytes.toByteArray()));
		return classes;
	}

	/**
	 * Defines the generated class in the package and class loader of the given class; a class
	 * already there is taken as it is: the tests of a class processed again in the same JVM
	 * generate the same code.
	 */
	private static Class<?> defineBeside(Class<?> host, String name, byte[] bytes) {
		Class<?> type = loaded(name, host.getClassLoader());
		if (type != null) {
			return type;
		}
		try {
			return MethodHandles.privateLookupIn(host, MethodHandles.lookup()).defineClass(bytes);
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException("The generated class " + name + " cannot be defined", ex);
		}
	}

	/**
	 * A class of the generated class's package: the class it was generated for, named by the
	 * generated name up to {@code __} (nested classes' {@code $} written {@code _}) or, for a CGLIB
	 * proxy, up to {@code $$}.
	 */
	private static Class<?> host(String generatedName, ClassLoader classLoader) {
		int lastDot = generatedName.lastIndexOf('.');
		String packagePrefix = generatedName.substring(0, lastDot + 1);
		String simpleName = generatedName.substring(lastDot + 1);
		int end = simpleName.indexOf("$$");
		if (end < 0) {
			end = simpleName.indexOf("__");
		}
		String target = (end < 0) ? simpleName : simpleName.substring(0, end);
		for (String candidate : List.of(target, target.replace('_', '$'))) {
			Class<?> type = loaded(packagePrefix + candidate, classLoader);
			if (type != null) {
				return type;
			}
		}
		throw new IllegalStateException("No class of " + generatedName + "'s package to define it beside");
	}

	private static Class<?> loaded(String name, ClassLoader classLoader) {
		try {
			return Class.forName(name, false, classLoader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	private static URL location(Class<?> type) {
		return type.getProtectionDomain().getCodeSource().getLocation();
	}

	private static String binaryName(String classFilePath) {
		return classFilePath.substring(0, classFilePath.length() - ".class".length()).replace('/', '.');
	}

	private static byte[] bytes(InputStreamSource source) {
		try (InputStream in = source.getInputStream()) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Defines the module's classes, those of its locations, and the code generated for them
	 * itself; asks its parent, the test's class loader, for every other class.
	 */
	private static final class GeneratedCodeClassLoader extends URLClassLoader {

		static {
			registerAsParallelCapable();
		}

		private final Map<String, byte[]> generated;

		private final Set<Class<?>> definedFromGenerated;

		GeneratedCodeClassLoader(URL[] locations, ClassLoader parent, Map<String, byte[]> generated,
				Set<Class<?>> definedFromGenerated) {
			super(locations, parent);
			this.generated = generated;
			this.definedFromGenerated = definedFromGenerated;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			synchronized (getClassLoadingLock(name)) {
				Class<?> type = findLoadedClass(name);
				if (type == null) {
					byte[] bytes = this.generated.get(name);
					if (bytes != null) {
						type = defineClass(name, bytes, 0, bytes.length);
						this.definedFromGenerated.add(type);
					}
					else if (findResource(name.replace('.', '/') + ".class") != null) {
						type = findClass(name);
					}
					else {
						return super.loadClass(name, resolve);
					}
				}
				if (resolve) {
					resolveClass(type);
				}
				return type;
			}
		}

	}

}
